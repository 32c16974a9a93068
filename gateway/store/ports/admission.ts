/**
 * The admission port: what the request path uses (identification, the atomic admission step, settlement, and the
 * reads of provider account endpoints). Hot path: each call is one direct method call on the store's admission
 * object (no wrapper per request).
 */
import type { Account, AdmissionPlan, AdmissionResult, KeyIdentity, Ticket } from '../types';
import type { AccountStore } from './accounts';
import type { KeyStore } from './keys';

/** What a lease holder counted (D33's metrics: grants, direct-mode share, units returned and written off). */
export interface LeaseCounters {
  /** Requests decided from a lease, and those sent to the owner's script. */
  leased: number;
  misses: number;
  /** Grants asked, and those answered with direct mode (nothing granted). */
  grants: number;
  direct: number;
  /** Units returned to the owner, and units posted after a reclaim that could not be charged. */
  returned: number;
  writtenOff: number;
}

/** Identification, admission and settlement (hot path). */
export interface AdmissionStore
  extends Pick<AccountStore, 'getAccount' | 'usage'>, Pick<KeyStore, 'listSlots'> {
  /** Key identity cache lookups so far (stores with a cache: the shared store); read by the metrics. */
  identityCacheStats?(): { hits: number; misses: number };
  /** Lease counters so far (stores with credit leases, D33: the shared store with `leases`); read by the metrics. */
  leaseStats?(): LeaseCounters | null;

  /* --- identification (hot path; may be cached, but changes must show within 1 s: D18, D19) --- */
  /** The key with this hash and its account, or null. Revoked keys are returned (status 'revoked'). */
  findKeyByHash(hash: string): Promise<KeyIdentity | null>;
  /** The account whose whitelist covers this address (B), or null. `address` is a plain IPv4/IPv6 address. */
  findWhitelistedAccount(address: string): Promise<Account | null>;

  /* --- admission (hot path, atomic) --- */
  /**
   * Execute a plan all-or-nothing (D10); the result is durable (committed) when the promise resolves, except on a
   * store that decides in memory (D33 owner, D34): there an admission is a reservation, durable once kept (its
   * journal), and one in flight at a crash is released.
   * 1. Slots, each SlotSpec in order: the live entries of `scope` are those with firstSeen+windowMs > now (fixed)
   *    or lastSeen+windowMs > now (sliding). A live `member` is admitted (its lastSeen becomes now); else, when
   *    fewer than `capacity` entries are live, a new entry (firstSeen = lastSeen = now) is added (replacing an
   *    expired entry of the same member); else the request is refused with `spec.refuse` and `nextSlotFreeAt` =
   *    the earliest freesAt among the live entries. The first refusal wins (D9).
   * 2. Free allowance: the request is free iff every CounterSpec's `used` for `plan.day` is below its `limit`
   *    (vacuously free when `free` is empty); a free request increments all of them (D5): billed false, charged 0.
   * 3. Not free, by `overflow`: refuse → refused with its code; bill → when the account's balance ≥ price the
   *    balance is debited and one ledger row written (kind 'charge', amount -price, ref plan.id, keyId plan.keyId):
   *    billed true, charged price; else refused with `overflow.refuse` (D7, D16); free (Unlimited) → admitted,
   *    nothing incremented or charged.
   * 4. Admitted: slot changes applied; usage_daily of every `plan.usage` subject incremented (billed column when
   *    billed, else free).
   * `quota` (admitted and refused alike) is the CounterSpec with the fewest remaining (limit − used, `used` as
   * after this request: +1 when the request was free, else unchanged), ties → the first in `free`; its used and
   * limit. So with D5's two counters it shows what the caller really has left (key 10/2,500 and network
   * 2,000/2,500 → the network's). Null when `free` is empty.
   * A refusal changes nothing: no counter, slot, credit, usage or address-limit entry (D10). A plan id may be
   * admitted once; admitting an already admitted plan id is a fault (throws) until the admission is kept.
   * Units (`plan.units` = n > 1): the slots are decided once; then unit i is free when every counter is still below
   * its limit after the free units before it, else it overflows (refused, billed `price` each, or free); the plan is
   * admitted when every unit is, else refused with the first refused unit's code and nothing changed. `billed` and
   * `charged` sum the units; `quota` is as after the last unit. The ticket carries one ticket per unit (`units`,
   * unit i's planId `${plan.id}/${i}`, its ledger ref): releasing a unit undoes its counter increments, charge and
   * usage; the slot changes stay with the plan's ticket.
   */
  admit(plan: AdmissionPlan): Promise<AdmissionResult>;
  /**
   * Undo an admission exactly (D11: backend failure or rejected request): its counter increments, its charge
   * (balance restored, the ledger row removed), the slot entries it added (removed unless used again since) and the
   * lastSeen it moved (restored unless moved again since), its usage (a row left at zero is removed). Idempotent per
   * ticket: a second release of the same ticket (or a copy of it) is a no-op.
   */
  release(ticket: Ticket): Promise<void>;
  /**
   * Keep an admission for good (the backend answered; D11 charges it): the store drops what it held to release it,
   * so nothing per request outlives its need, and its crash sweeper (when enabled) will not release it. A later
   * release of the ticket is then a no-op; keeping twice, or a released ticket, is a no-op. Callers may skip it (the
   * record then expires on its own; see docs/shared-state.md) but must call it when the sweeper is enabled.
   */
  keep(ticket: Ticket): Promise<void>;
  /** Record a refused request in usage history only (statistics; changes no counter, slot or credit). */
  recordRefusal(subjects: string[], day: string): Promise<void>;
}
