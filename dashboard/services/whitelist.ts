/** Rule set B: the account's whitelist (D18). */
import { StoreConflict } from '../../gateway/store/types';
import type { DashboardDeps } from '../deps';
import { DashboardError } from '../errors';
import * as v from '../validate';
import { whitelistView, type WhitelistJson } from './views';

type Deps = Pick<DashboardDeps, 'store' | 'rules' | 'clock'>;

function requireWhitelist(d: Deps): void {
  if (!d.rules.whitelist)
    throw new DashboardError('not_in_rule_set', 'This service identifies requests by key only');
}

/** The account's entries. */
export async function listWhitelist(d: Deps, accountId: string): Promise<WhitelistJson[]> {
  requireWhitelist(d);
  return (await d.store.listWhitelist(accountId)).map(whitelistView);
}

/** Add an address or block; another account's overlapping entry is refused without naming it (D18). */
export async function addWhitelist(d: Deps, accountId: string, address: unknown): Promise<WhitelistJson> {
  requireWhitelist(d);
  const cidr = v.whitelistAddress(d.rules, address);
  try {
    return whitelistView(await d.store.addWhitelist(accountId, cidr, d.clock.now()));
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'whitelist_overlap') {
      throw new DashboardError(
        'whitelist_overlap',
        "This address is already on another account's whitelist",
        'address',
      );
    }
    if (err instanceof StoreConflict && err.reason === 'invalid_input') {
      throw new DashboardError(
        'invalid_parameter',
        'This is not an address that can be whitelisted',
        'address',
      );
    }
    throw err;
  }
}

/** Remove one of the account's entries; another account's entry is not found. */
export async function removeWhitelist(d: Deps, accountId: string, entryId: string): Promise<void> {
  requireWhitelist(d);
  const entries = await d.store.listWhitelist(accountId);
  if (!entries.some((e) => e.id === entryId))
    throw new DashboardError('not_found', 'No such whitelist entry on your account');
  await d.store.removeWhitelist(accountId, entryId);
}
