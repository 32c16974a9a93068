/** Reading charges from a ledger in the D35 form: hourly rows, each with a request count. */
import type { LedgerEntry } from '../../gateway/store/types';

/** The charge rows of a ledger. */
export function chargeRows(ledger: readonly LedgerEntry[]): LedgerEntry[] {
  return ledger.filter((e) => e.kind === 'charge');
}

/** How many requests the ledger's charge rows stand for. */
export function chargedRequests(ledger: readonly LedgerEntry[]): number {
  return chargeRows(ledger).reduce((n, e) => n + (e.count ?? 0), 0);
}

/** What the ledger's charge rows took, in positive units. */
export function chargedAmount(ledger: readonly LedgerEntry[]): number {
  return -chargeRows(ledger).reduce((n, e) => n + e.amount, 0);
}
