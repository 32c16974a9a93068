/**
 * D35: a charge is recorded as one ledger row per (account, key, UTC hour) holding a request count and an amount.
 * The row is found by its `ref` under the ledger's unique (account_id, ref) index: `charge <hourStart> <keyId|->`.
 * The space makes the ref impossible as a top-up's idempotency key (visible ASCII only) or a provider's payment ref,
 * and '-' stands for "no key" (a whitelisted account's charge), since NULLs are distinct in unique indexes.
 */

/** One UTC hour in ms. */
export const HOUR_MS = 3_600_000;

/** The start (epoch ms) of the UTC hour holding `at`. */
export function hourStartOf(at: number): number {
  return at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

/** The ledger ref of the hourly charge row of `keyId` (null: no key) for the hour starting at `hourStart`. */
export function hourlyChargeRef(keyId: string | null, hourStart: number): string {
  return `charge ${hourStart} ${keyId ?? '-'}`;
}

/** An hourly charge to add: `count` requests, `amount` positive minor units charged (both negative to take back). */
export interface HourlyCharge {
  accountId: string;
  keyId: string | null;
  hourStart: number;
  count: number;
  amount: number;
}

/** Check one hourly charge (a bad one is a bug in the caller, not a refusal). */
export function requireHourlyCharge(c: HourlyCharge): void {
  if (typeof c.accountId !== 'string' || c.accountId === '')
    throw new TypeError('hourly charge: accountId must be a non-empty string');
  if (c.keyId !== null && (typeof c.keyId !== 'string' || c.keyId === ''))
    throw new TypeError('hourly charge: keyId must be a non-empty string or null');
  if (!Number.isSafeInteger(c.hourStart) || hourStartOf(c.hourStart) !== c.hourStart)
    throw new RangeError(`hourly charge: hourStart ${c.hourStart} is not the start of a UTC hour`);
  if (!Number.isSafeInteger(c.count)) throw new RangeError('hourly charge: count must be a safe integer');
  if (!Number.isSafeInteger(c.amount)) throw new RangeError('hourly charge: amount must be a safe integer');
}
