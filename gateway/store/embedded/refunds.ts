/**
 * Refunds of paid top-ups in the embedded store (refunds.ts beside the store's face): one IMMEDIATE transaction finds
 * the top-up's receipt by its payment, takes what the claim's total adds from the balance (never below zero, D16),
 * writes the one adjustment row, the refunds row and the credit note, and marks the top-up's receipt. A repeat of the
 * event, or an older total, finds nothing left to apply.
 */
import type Database from 'better-sqlite3';
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
import { insertLedger, requireAccount } from './accounts';
import { issue } from './receipts';

/** See Store.refundTopUp. */
export function refundTopUp(db: Database.Database, input: RefundInput, now: number): RefundResult {
  requireRefundInput(input);
  return db
    .transaction((): RefundResult => {
      const row = db
        .prepare("SELECT * FROM receipts WHERE payment_ref = ? AND kind = 'topup'")
        .get(input.paymentRef) as object | undefined;
      if (!row) return noRefund('unknown_payment', null);
      const topUp = toReceipt(row);
      const prior = db.prepare('SELECT credit_note FROM refunds WHERE event_ref = ?').get(input.eventRef) as
        { credit_note: string | null } | undefined;
      if (prior)
        return { ...noRefund('replayed', topUp.accountId), creditNote: noteOf(db, prior.credit_note) };
      const { claimed } = db
        .prepare(
          'SELECT COALESCE(SUM(amount), 0) AS claimed FROM refunds WHERE receipt_number = ? AND claim = ?',
        )
        .get(topUp.number, input.claim) as { claimed: number };
      const delta = refundDelta(input.total, Number(claimed), topUp);
      if (delta === 0) return noRefund('replayed', topUp.accountId);
      const account = requireAccount(db, topUp.accountId);
      const removed = Math.min(Math.max(0, account.balance), delta);
      const owed = delta - removed;
      const id = newOrderedId('rfd');
      if (removed > 0) {
        db.prepare('UPDATE accounts SET balance = balance - ? WHERE id = ?').run(removed, topUp.accountId);
        insertLedger(db, {
          id: newOrderedId('led'),
          account_id: topUp.accountId,
          amount: -removed,
          kind: 'adjustment',
          key_id: null,
          ref: refundLedgerRef(id),
          created_at: now,
        });
      }
      const note = issue(
        db,
        { accountId: topUp.accountId, sourceId: id, kind: 'credit_note', amount: delta, now },
        creditNoteInput(topUp, delta),
        {
          credit_of: topUp.number,
          refunded: delta,
          owed,
          invoice: topUp.invoice
            ? creditNoteInvoice(topUp.invoice, topUp.amount, topUp.refunded, delta)
            : null,
        },
      );
      db.prepare(
        `INSERT INTO refunds (id, account_id, receipt_number, claim, event_ref, amount, removed, owed, credit_note,
           created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        topUp.accountId,
        topUp.number,
        input.claim,
        input.eventRef,
        delta,
        removed,
        owed,
        note.number,
        now,
      );
      db.prepare('UPDATE receipts SET refunded = refunded + ?, owed = owed + ? WHERE number = ?').run(
        delta,
        owed,
        topUp.number,
      );
      return { status: 'applied', accountId: topUp.accountId, removed, owed, creditNote: note };
    })
    .immediate();
}

function noteOf(db: Database.Database, number: string | null): Receipt | null {
  if (number === null) return null;
  const row = db.prepare('SELECT * FROM receipts WHERE number = ?').get(number) as object | undefined;
  return row ? toReceipt(row) : null;
}
