/**
 * Receipts of the embedded store (D31): each receipt is written in the same synchronous IMMEDIATE transaction as its
 * credit or purchase, so a number is allocated only when the money moves, and never twice for one credit.
 */
import type Database from 'better-sqlite3';
import {
  cleanBilling,
  receiptRow,
  requireReceiptInput,
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
import type { ApiKey, LedgerEntry, NewKey } from '../types';
import { buyPackage, credit, requireAccount } from './accounts';

/** The account's billing details; unknown account → not_found. */
export function getBilling(db: Database.Database, accountId: string): BillingDetails {
  requireAccount(db, accountId);
  return toBilling(db.prepare('SELECT * FROM account_billing WHERE account_id = ?').get(accountId) as object);
}

/** Replace the account's billing details. */
export function setBilling(
  db: Database.Database,
  accountId: string,
  input: BillingDetails,
  now: number,
): BillingDetails {
  const b = cleanBilling(input);
  return db
    .transaction(() => {
      requireAccount(db, accountId);
      db.prepare(
        `INSERT INTO account_billing (account_id, name, address, vat_id, country, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id) DO UPDATE SET name = excluded.name, address = excluded.address,
           vat_id = excluded.vat_id, country = excluded.country, updated_at = excluded.updated_at`,
      ).run(accountId, b.name, b.address, b.vatId, b.country ?? null, now);
      return b;
    })
    .immediate();
}

/** A credit note's own columns (refunds.ts), and its invoice part when the receipt it refunds is an invoice. */
export type CreditNoteColumns = {
  credit_of: string;
  refunded: number;
  owed: number;
  invoice?: Invoice | null;
};

/** The receipt of `sourceId`, or a new one numbered now (call inside the transaction that moved the money). */
export function issue(
  db: Database.Database,
  src: { accountId: string; sourceId: string; kind: Receipt['kind']; amount: number; now: number },
  input: ReceiptInput,
  note?: CreditNoteColumns,
): Receipt {
  const prior = db.prepare('SELECT * FROM receipts WHERE source_id = ?').get(src.sourceId) as
    object | undefined;
  if (prior) return toReceipt(prior);
  const series = seriesOf(src.now);
  const { last } = db
    .prepare(
      `INSERT INTO receipt_series (series, last) VALUES (?, 1)
       ON CONFLICT (series) DO UPDATE SET last = last + 1 RETURNING last`,
    )
    .get(series) as { last: number };
  const billing = getBilling(db, src.accountId);
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
  const row = { ...receiptRow(series, Number(last), src, input, billing, invoice), ...noteColumns };
  const columns = Object.keys(row);
  db.prepare(
    `INSERT INTO receipts (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  ).run(row);
  return toReceipt(row);
}

/** Credit and issue (or, on a replay, find) its receipt in one transaction. */
export function creditWithReceipt(
  db: Database.Database,
  accountId: string,
  amount: number,
  idempotencyKey: string | null,
  now: number,
  input: ReceiptInput,
): { entry: LedgerEntry; balance: number; replayed: boolean; receipt: Receipt } {
  requireReceiptInput(input);
  // credit() is itself a transaction: called inside this one it runs as a savepoint of it.
  return db
    .transaction(() => {
      const r = credit(db, accountId, amount, idempotencyKey, now);
      const src = { accountId, sourceId: r.entry.id, kind: 'topup' as const, amount, now: r.entry.createdAt };
      return { ...r, receipt: issue(db, src, input) };
    })
    .immediate();
}

/** Buy a package and issue its receipt in one transaction. */
export function buyPackageWithReceipt(
  db: Database.Database,
  accountId: string,
  price: number,
  key: NewKey,
  now: number,
  input: ReceiptInput,
): { key: ApiKey; balance: number; receipt: Receipt } {
  requireReceiptInput(input);
  return db
    .transaction(() => {
      const r = buyPackage(db, accountId, price, key, now);
      const src = { accountId, sourceId: r.key.id, kind: 'package' as const, amount: price, now };
      return { ...r, receipt: issue(db, src, input) };
    })
    .immediate();
}

/** The account's newest receipts. */
export function listReceipts(
  db: Database.Database,
  accountId: string,
  limit: number,
  before?: string,
): Receipt[] {
  requireReceiptLimit(limit);
  requireAccount(db, accountId);
  if (before === undefined) {
    const rows = db
      .prepare('SELECT * FROM receipts WHERE account_id = ? ORDER BY issued_at DESC, seq DESC LIMIT ?')
      .all(accountId, limit) as object[];
    return rows.map(toReceipt);
  }
  const anchor = db
    .prepare('SELECT issued_at, seq FROM receipts WHERE account_id = ? AND number = ?')
    .get(accountId, String(before)) as { issued_at: number; seq: number } | undefined;
  if (!anchor) throw unknownReceipt(before);
  const rows = db
    .prepare(
      `SELECT * FROM receipts WHERE account_id = ? AND (issued_at < ? OR (issued_at = ? AND seq < ?))
       ORDER BY issued_at DESC, seq DESC LIMIT ?`,
    )
    .all(accountId, anchor.issued_at, anchor.issued_at, anchor.seq, limit) as object[];
  return rows.map(toReceipt);
}

/** One of the account's receipts, or null. */
export function getReceipt(db: Database.Database, accountId: string, number: string): Receipt | null {
  const row = db
    .prepare('SELECT * FROM receipts WHERE account_id = ? AND number = ?')
    .get(accountId, String(number)) as object | undefined;
  return row ? toReceipt(row) : null;
}
