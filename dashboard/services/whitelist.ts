/** Rule set B: the account's whitelist (D18). */
import type { Actor } from '../../gateway/accounts/audit';
import { StoreConflict } from '../../gateway/store/types';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import * as v from '../validate';
import { refusing } from './refusals';
import { whitelistView, type WhitelistJson } from './views';

type Deps = Pick<AppContext, 'accounts' | 'rules'>;

/** The account's entries. */
export async function listWhitelist(d: Deps, accountId: string): Promise<WhitelistJson[]> {
  return (await refusing(d.rules, () => d.accounts.whitelist(accountId))).map(whitelistView);
}

/** Add an address or block; another account's overlapping entry is refused without naming it (D18). */
export async function addWhitelist(
  d: Deps,
  accountId: string,
  address: unknown,
  actor?: Actor,
): Promise<WhitelistJson> {
  await refusing(d.rules, async () => d.accounts.require('whitelist'));
  const cidr = v.whitelistAddress(d.rules, address);
  try {
    return whitelistView(await d.accounts.addWhitelist(accountId, cidr, actor));
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
export function removeWhitelist(d: Deps, accountId: string, entryId: string, actor?: Actor): Promise<void> {
  return refusing(d.rules, () => d.accounts.removeWhitelist(accountId, entryId, actor));
}
