/**
 * Receipts of the shared store (D31) in PostgreSQL. Balances move in Redis (wallet.ts) and reach the ledger through
 * the drain; the receipt of a credit or purchase is written right after it, keyed by its ledger entry id (top-up) or
 * key id (package), in one PostgreSQL transaction that takes the next number of the series. The series row is
 * updated in that transaction (a row lock, not a sequence): concurrent issuers queue on it, and a transaction that
 * fails (two issuers of one source: the second hits the unique source_id) rolls its number back, so numbers stay
 * gapless. A replay of the credit finds the receipt by its source; one whose process died between the credit and the
 * receipt gets its receipt on the replay (payment providers repeat a webhook until it is answered).
 */
import type { Knex } from 'knex';
import {
  cleanBilling,
  receiptRow,
  requireReceiptLimit,
  seriesOf,
  unknownReceipt,
  toBilling,
  toReceipt,
  type BillingDetails,
  type Receipt,
  type ReceiptInput,
} from '../receipts';
import { invoiceFor, type Invoice } from '../invoices';
import { requireAccount } from './pg-accounts';
import { isUniqueViolation } from './pg';

/** The account's billing details; unknown account → not_found. */
export async function getBilling(db: Knex, accountId: string): Promise<BillingDetails> {
  await requireAccount(db, accountId);
  return toBilling(await db('account_billing').where({ account_id: accountId }).first());
}

/** Replace the account's billing details. */
export async function setBilling(
  db: Knex,
  accountId: string,
  input: BillingDetails,
  now: number,
): Promise<BillingDetails> {
  const b = cleanBilling(input);
  await requireAccount(db, accountId);
  await db('account_billing')
    .insert({
      account_id: accountId,
      name: b.name,
      address: b.address,
      vat_id: b.vatId,
      country: b.country ?? null,
      updated_at: now,
    })
    .onConflict('account_id')
    .merge(['name', 'address', 'vat_id', 'country', 'updated_at']);
  return b;
}

/** The receipt of `src.sourceId`, or a new one with the next number of its series. */
export async function issue(
  db: Knex,
  src: { accountId: string; sourceId: string; kind: Receipt['kind']; amount: number; now: number },
  input: ReceiptInput,
  note?: { credit_of: string; refunded: number; owed: number; invoice?: Invoice | null },
): Promise<Receipt> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await db.transaction(async (trx) => {
        const prior = await trx('receipts').where({ source_id: src.sourceId }).first();
        if (prior) return toReceipt(prior);
        const series = seriesOf(src.now);
        const [next] = await trx('receipt_series')
          .insert({ series, last: 1 })
          .onConflict('series')
          .merge({ last: trx.raw('receipt_series.last + 1') })
          .returning('last');
        const seq = Number((next as { last: unknown }).last);
        const billing = toBilling(await trx('account_billing').where({ account_id: src.accountId }).first());
        const { invoice: noteInvoice, ...noteColumns } = note ?? {};
        const invoice = note
          ? (noteInvoice ?? null)
          : input.invoicing
            ? invoiceFor(input.invoicing, billing, {
                amount: src.amount,
                currency: input.currency,
                paid: input.paid ?? null,
              })
            : null;
        const row = { ...receiptRow(series, seq, src, input, billing, invoice), ...noteColumns };
        await trx('receipts').insert(row);
        return toReceipt(row);
      });
    } catch (err) {
      // Another issuer of the same source won the race (its receipt is found on the next try).
      if (isUniqueViolation(err) && attempt < 3) continue;
      throw err;
    }
  }
}

/** The account's newest receipts. */
export async function listReceipts(
  db: Knex,
  accountId: string,
  limit: number,
  before?: string,
): Promise<Receipt[]> {
  requireReceiptLimit(limit);
  await requireAccount(db, accountId);
  const q = db('receipts').where({ account_id: accountId });
  if (before !== undefined) {
    const anchor = (await db('receipts')
      .where({ account_id: accountId, number: String(before) })
      .first('issued_at', 'seq')) as { issued_at: string | number; seq: string | number } | undefined;
    if (!anchor) throw unknownReceipt(before);
    const at = Number(anchor.issued_at);
    const seq = Number(anchor.seq);
    void q.andWhere((w) =>
      w.where('issued_at', '<', at).orWhere((x) => x.where('issued_at', at).andWhere('seq', '<', seq)),
    );
  }
  const rows = await q
    .orderBy([
      { column: 'issued_at', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ])
    .limit(limit);
  return rows.map(toReceipt);
}

/** One of the account's receipts, or null. */
export async function getReceipt(db: Knex, accountId: string, number: string): Promise<Receipt | null> {
  const row = await db('receipts')
    .where({ account_id: accountId, number: String(number) })
    .first();
  return row ? toReceipt(row) : null;
}
