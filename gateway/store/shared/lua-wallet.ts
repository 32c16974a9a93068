import { LEASES_OF_LUA } from './lease/lua-lease';

/**
 * Balance scripts. The Redis wallet (hash: b = balance in units, v = when it was initialised) is what admissions
 * spend; PostgreSQL's ledger is its durable history, written by the drain from the event stream (D16).
 */

/**
 * Initialise a wallet from the ledger sum, exactly once (HSETNX: a later init with a stale sum changes nothing).
 * KEYS[1] wallet; ARGV[1] balance, ARGV[2] version (ms). Reply: the wallet's balance.
 */
export const WALLET_INIT_LUA = `
if redis.call('HSETNX', KEYS[1], 'b', ARGV[1]) == 1 then redis.call('HSET', KEYS[1], 'v', ARGV[2]) end
return tonumber(redis.call('HGET', KEYS[1], 'b'))
`;

/**
 * A top-up, applied once per idempotency mark: KEYS[1] wallet, KEYS[2] mark (per idempotency key, or per ledger id
 * when there is none), KEYS[3] event stream. ARGV: ledgerId, amount, accountId, ref ('' = none), now, markTtl.
 * Replies: {1, balance} applied; {2, 'ledgerId|amount|createdAt', balance} already applied (replay);
 *          {3} wallet not initialised; {4} the balance would pass 2^53.
 */
export const CREDIT_LUA = `
local prior = redis.call('GET', KEYS[2])
if prior then return {2, prior, tonumber(redis.call('HGET', KEYS[1], 'b') or '0')} end
local b = redis.call('HGET', KEYS[1], 'b')
if not b then return {3} end
local amount = tonumber(ARGV[2])
if tonumber(b) + amount > 9007199254740991 then return {4} end
local nb = redis.call('HINCRBY', KEYS[1], 'b', amount)
redis.call('SET', KEYS[2], ARGV[1] .. '|' .. ARGV[2] .. '|' .. ARGV[5], 'EX', ARGV[6])
redis.call('XADD', KEYS[3], '*', 't', 'top', 'e', 'top:' .. ARGV[1], 'id', ARGV[1], 'a', ARGV[3], 'c', ARGV[2],
  'r', ARGV[4], 'n', ARGV[5])
return {1, nb}
`;

/**
 * Debit a package price (A, D17): KEYS[1] wallet, KEYS[2] event stream. ARGV: ledgerId, price, accountId, keyId,
 * now. Spends only what no holder has leased (D33). Replies: {1, balance} debited; {0, spendable balance} insufficient
 * (nothing changed); {3} wallet not initialised.
 */
export const DEBIT_LUA = `${LEASES_OF_LUA}
local b, leased = leasesOf(KEYS[1], tonumber(ARGV[5]), '', KEYS[2])
if not b then return {3} end
local price = tonumber(ARGV[2])
if b - leased < price then return {0, b - leased} end
local nb = redis.call('HINCRBY', KEYS[1], 'b', -price)
redis.call('XADD', KEYS[2], '*', 't', 'pkg', 'e', 'pkg:' .. ARGV[1], 'id', ARGV[1], 'a', ARGV[3], 'c', ARGV[2],
  'k', ARGV[4], 'n', ARGV[5])
return {1, nb}
`;
