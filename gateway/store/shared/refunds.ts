/**
 * Refunds of paid top-ups in the shared store (gateway/store/refunds.ts). The balance lives in the Redis wallet and
 * reaches the ledger through the drain, so a refund is three steps, each safe to repeat:
 * 1. PostgreSQL, with the top-up's receipt row locked: the event is recorded as a refunds row with the units it
 *    adds to its claim (events of one payment queue on the lock, so two of them cannot both take one total);
 * 2. Redis, once per refunds row (an idempotency mark): take what the wallet has, up to those units, and write the
 *    'adj' event the drain turns into the ledger row (D16);
 * 3. PostgreSQL: the credit note, the owed rest and the receipt's totals, once (the refunds row is locked and filled).
 * A process that dies between the steps leaves the row unfilled; the provider repeats the event until it is
 * answered, and the repeat finishes the same row (the mark returns what step 2 took).
 */
import type { Knex } from 'knex';
import { newOrderedId } from '../ids';
import { creditNoteInvoice } from '../invoices';
import { toReceipt, type Receipt } from '../receipts';
import {
  creditNoteInput,
  noRefund,
  refundDelta,
  refundLedgerRef,
  requireRefundInput,
  type RefundInput,
  type RefundResult,
} from '../refunds';
import { redisFault } from './errors';
import type { Layout } from './layout';
import { issue } from './receipts';
import type { RedisClient } from './redis-client';

/** How long a refund's mark stays in Redis (providers repeat an unanswered event for about three days). */
const REFUND_MARK_TTL_S = 7 * 86_400;

/**
 * Take up to ARGV[5] units once per mark: KEYS[1] wallet, KEYS[2] mark, KEYS[3] event stream; ARGV ledgerId,
 * accountId, ref, now, units, markTtl. Replies {1, taken} (an 'adj' event when taken > 0); {2, taken} already done;
 * {3} wallet not initialised.
 */
const REFUND_LUA = `
local prior = redis.call('GET', KEYS[2])
if prior then return {2, tonumber(prior)} end
local b = redis.call('HGET', KEYS[1], 'b')
if not b then return {3} end
local take = math.min(math.max(tonumber(b), 0), tonumber(ARGV[5]))
if take > 0 then
  redis.call('HINCRBY', KEYS[1], 'b', -take)
  redis.call('XADD', KEYS[3], '*', 't', 'adj', 'e', 'adj:' .. ARGV[1], 'id', ARGV[1], 'a', ARGV[2], 'c', take,
    'r', ARGV[3], 'n', ARGV[4])
end
redis.call('SET', KEYS[2], take, 'EX', ARGV[6])
return {1, take}
`;

/** What the shared store gives the refund steps. */
export interface RefundDeps {
  knex: Knex;
  redis: RedisClient;
  layout: Layout;
  initWallet(accountId: string): Promise<number>;
  /** Run a PostgreSQL step (connection faults become StoreUnavailableError). */
  pg<T>(fn: () => Promise<T>): Promise<T>;
}

type RefundRow = {
  id: string;
  account_id: string;
  amount: string | number;
  removed: unknown;
  credit_note: unknown;
};
type Claimed = { kind: 'result'; result: RefundResult } | { kind: 'open'; row: RefundRow; topUp: Receipt };

/** See Store.refundTopUp. */
export async function refundTopUp(deps: RefundDeps, input: RefundInput, now: number): Promise<RefundResult> {
  requireRefundInput(input);
  const claimed = await deps.pg(() => claim(deps.knex, input, now));
  if (claimed.kind === 'result') return claimed.result;
  const { row, topUp } = claimed;
  const removed = await take(deps, row, now);
  return deps.pg(() => finish(deps.knex, row, topUp, input, removed, now));
}

/** Step 1: record the event against its claim, or say why nothing is to be done. */
function claim(db: Knex, input: RefundInput, now: number): Promise<Claimed> {
  return db.transaction(async (trx): Promise<Claimed> => {
    const found = await trx('receipts')
      .where({ payment_ref: input.paymentRef, kind: 'topup' })
      .forUpdate()
      .first();
    if (!found) return { kind: 'result', result: noRefund('unknown_payment', null) };
    const topUp = toReceipt(found);
    const prior = (await trx('refunds').where({ event_ref: input.eventRef }).first()) as
      RefundRow | undefined;
    if (prior && prior.removed === null) return { kind: 'open', row: prior, topUp };
    if (prior) {
      const note = prior.credit_note === null ? null : await noteOf(trx, String(prior.credit_note));
      return { kind: 'result', result: { ...noRefund('replayed', topUp.accountId), creditNote: note } };
    }
    const sums = (await trx('refunds')
      .where({ receipt_number: topUp.number })
      .select(
        trx.raw('COALESCE(SUM(amount), 0) AS refunded'),
        trx.raw('COALESCE(SUM(CASE WHEN claim = ? THEN amount ELSE 0 END), 0) AS claimed', [input.claim]),
      )
      .first()) as { refunded: string | number; claimed: string | number };
    const delta = refundDelta(input.total, Number(sums.claimed), {
      amount: topUp.amount,
      refunded: Number(sums.refunded),
    });
    if (delta === 0) return { kind: 'result', result: noRefund('replayed', topUp.accountId) };
    const row = {
      id: newOrderedId('rfd'),
      account_id: topUp.accountId,
      receipt_number: topUp.number,
      claim: input.claim,
      event_ref: input.eventRef,
      amount: delta,
      removed: null,
      owed: null,
      credit_note: null,
      created_at: now,
    };
    await trx('refunds').insert(row);
    return { kind: 'open', row, topUp };
  });
}

/** Step 2: take the refund's units from the wallet, once per refunds row. */
async function take(deps: RefundDeps, row: RefundRow, now: number): Promise<number> {
  const accountId = row.account_id;
  const keys = [
    deps.layout.wallet(accountId),
    deps.layout.topupMark(accountId, refundLedgerRef(row.id)),
    deps.layout.stream(deps.layout.accountShard(accountId)),
  ];
  const args = [
    newOrderedId('led'),
    accountId,
    refundLedgerRef(row.id),
    now,
    Number(row.amount),
    REFUND_MARK_TTL_S,
  ];
  for (;;) {
    let r: unknown[];
    try {
      r = (await deps.redis.eval(REFUND_LUA, 3, ...keys, ...args)) as unknown[];
    } catch (err) {
      throw redisFault(err);
    }
    if (r[0] === 1 || r[0] === 2) return Number(r[1]);
    await deps.initWallet(accountId);
  }
}

/** Step 3: the credit note, the owed rest and the top-up receipt's totals, once per refunds row. */
function finish(
  db: Knex,
  row: RefundRow,
  topUp: Receipt,
  input: RefundInput,
  removed: number,
  now: number,
): Promise<RefundResult> {
  return db.transaction(async (trx): Promise<RefundResult> => {
    const locked = (await trx('refunds').where({ id: row.id }).forUpdate().first()) as RefundRow;
    if (locked.removed !== null) {
      const note = locked.credit_note === null ? null : await noteOf(trx, String(locked.credit_note));
      return { ...noRefund('replayed', topUp.accountId), creditNote: note };
    }
    const delta = Number(locked.amount);
    const owed = delta - removed;
    // The top-up as the credit notes finished so far left it (its running refunded total, under this lock).
    const current = toReceipt(await trx('receipts').where({ number: topUp.number }).forUpdate().first());
    const note = await issue(
      trx,
      { accountId: topUp.accountId, sourceId: row.id, kind: 'credit_note', amount: delta, now },
      creditNoteInput(topUp, delta),
      {
        credit_of: topUp.number,
        refunded: delta,
        owed,
        invoice: current.invoice
          ? creditNoteInvoice(current.invoice, current.amount, current.refunded, delta)
          : null,
      },
    );
    await trx('refunds').where({ id: row.id }).update({ removed, owed, credit_note: note.number });
    await trx('receipts')
      .where({ number: topUp.number })
      .update({ refunded: trx.raw('refunded + ?', [delta]), owed: trx.raw('owed + ?', [owed]) });
    return { status: 'applied', accountId: topUp.accountId, removed, owed, creditNote: note };
  });
}

async function noteOf(db: Knex, number: string): Promise<Receipt | null> {
  const r = await db('receipts').where({ number }).first();
  return r ? toReceipt(r) : null;
}
