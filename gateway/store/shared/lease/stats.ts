/** Counters of a lease holder (D33: exported as metrics: grants, direct-mode share, parked units). */
export class LeaseStats {
  /** Requests decided from a lease (no Redis call). */
  leased = 0;
  /** Requests the holder could not decide (sent to the owner's per-request script). */
  misses = 0;
  /** Grants asked, and those the owner answered with direct mode (A < 4H: nothing granted). */
  grants = 0;
  direct = 0;
  /** The largest grant so far (units): what one lease can park (D33's early-refusal bound). */
  largestGrant = 0;
  /** Units returned to the owner (idle, stopped or voided leases). */
  returned = 0;
  /** Units posted after their lease was reclaimed that the owner could not charge (D16: never below zero). */
  writtenOff = 0;
  /** Flushes that found Redis had lost its data (an empty restart), and the requests they charged again. */
  recoveries = 0;
  recharged = 0;
  /** Accounts the background reclaim visited (their earliest lease had expired). */
  reclaimed = 0;
  /** Flushes sent, failed, and view reads. */
  flushes = 0;
  flushFailures = 0;
  probes = 0;
}
