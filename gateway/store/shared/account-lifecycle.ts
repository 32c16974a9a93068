/**
 * Account lifecycle of the shared store (issue 15 item 1): e-mail verification and deletion. PostgreSQL holds the
 * account, keys and whitelist (one transaction); Redis holds the wallet and the IP slots. The balance is forfeited by
 * one script that empties the wallet and writes an 'adj' event, which the drain turns into the ledger row (D16), so
 * the wallet and the ledger agree as for every other change of the balance.
 */
import type { Knex } from 'knex';
import { newOrderedId } from '../ids';
import { normaliseEmail } from '../checks';
import { ERASED_WITH_ACCOUNT } from '../erasure';
import { toAccount } from '../rows';
import { StoreConflict, type Account } from '../types';
import { redisFault } from './errors';
import type { Layout } from './layout';
import type { RedisClient } from './redis-client';
import { requireLiveAccount } from './pg-accounts';

/** The ledger ref of a balance forfeited at deletion. */
export const FORFEIT_REF = 'account-deleted';

/**
 * Empty a wallet: KEYS[1] wallet, KEYS[2] event stream; ARGV ledgerId, accountId, ref, now.
 * Replies {1, forfeited} (0 when nothing was there, no event); {3} wallet not initialised.
 */
const FORFEIT_LUA = `
local b = redis.call('HGET', KEYS[1], 'b')
if not b then return {3} end
b = tonumber(b)
if b <= 0 then return {1, 0} end
redis.call('HSET', KEYS[1], 'b', 0)
redis.call('XADD', KEYS[2], '*', 't', 'adj', 'e', 'adj:' .. ARGV[1], 'id', ARGV[1], 'a', ARGV[2], 'c', b,
  'r', ARGV[3], 'n', ARGV[4])
return {1, b}
`;

/** See Store.markEmailVerified (PostgreSQL only). */
export async function markEmailVerified(db: Knex, id: string, now: number): Promise<Account> {
  await db('accounts')
    .where({ id })
    .whereNull('email_verified_at')
    .whereNot({ status: 'deleted' })
    .update({ email_verified_at: now });
  return requireLiveAccount(db, id);
}

/** What the PostgreSQL part of a deletion changed: the account and its keys' ids and hashes. */
export interface Erased {
  account: Account;
  keys: { id: string; hash: string }[];
}

/**
 * The PostgreSQL part of Store.deleteAccount, one transaction with the account row locked: keys revoked, whitelist
 * removed, personal data erased, status 'deleted'. Already deleted → account_deleted with `alreadyDeleted` set so
 * the caller can finish a forfeit an earlier attempt left undone.
 */
export async function erasePg(db: Knex, id: string, tombstone: string, now: number): Promise<Erased> {
  return db.transaction(async (trx) => {
    const row = await trx('accounts').where({ id }).forUpdate().first();
    if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
    if (row.status === 'deleted') throw new StoreConflict('account_deleted', `account ${id} is deleted`);
    const keys = (await trx('api_keys').where({ account_id: id }).select('id', 'hash')) as {
      id: string;
      hash: string;
    }[];
    await trx('api_keys')
      .where({ account_id: id, status: 'active' })
      .update({ status: 'revoked', revoked_at: now });
    await trx('whitelist').where({ account_id: id }).delete();
    // Personal data of issue 15's other features (see ERASED_WITH_ACCOUNT).
    for (const table of ERASED_WITH_ACCOUNT) await trx(table).where({ account_id: id }).delete();
    const rows = await trx('accounts')
      .where({ id })
      .update({
        email: tombstone,
        email_norm: normaliseEmail(tombstone),
        name: null,
        password_hash: null,
        status: 'deleted',
        unlimited_until: null,
        deleted_at: now,
      })
      .returning('*');
    return { account: toAccount(rows[0] as object), keys };
  });
}

/** Forfeit the wallet's balance (initialising it from the ledger first when needed); resolves to the units taken. */
export async function forfeitWallet(
  redis: RedisClient,
  layout: Layout,
  initWallet: (accountId: string) => Promise<number>,
  accountId: string,
  now: number,
): Promise<number> {
  const keys = [layout.wallet(accountId), layout.stream(layout.accountShard(accountId))];
  for (;;) {
    let r: unknown[];
    try {
      r = (await redis.eval(
        FORFEIT_LUA,
        2,
        ...keys,
        newOrderedId('led'),
        accountId,
        FORFEIT_REF,
        now,
      )) as unknown[];
    } catch (err) {
      throw redisFault(err);
    }
    if (r[0] === 1) return Number(r[1]);
    await initWallet(accountId);
  }
}

/** Remove the IP slots of the account and of its keys (Redis). */
export async function dropSlots(
  redis: RedisClient,
  layout: Layout,
  accountId: string,
  keyIds: readonly string[],
): Promise<void> {
  try {
    // One DEL per key: on a Redis Cluster the scopes live in different hash slots.
    for (const scope of [`account:${accountId}`, ...keyIds.map((k) => `key:${k}`)])
      await redis.del(layout.slots(scope));
  } catch (err) {
    throw redisFault(err);
  }
}
