/** Credit top-ups (D16), exactly once per Idempotency-Key; refunds of paid top-ups and what they left owed. */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import * as v from '../validate';
import { creditNoteView, ledgerView, money } from '../views';
import { param } from './common';

/** Register POST /accounts/:id/credit: 201 on a new top-up, 200 with the same entry on a replay. */
export function creditRoutes(router: Router, deps: RouteDeps): void {
  const { rules, accounts } = deps;
  route(router, '/accounts/:id/credit', {
    post: async (req, res) => {
      const idem = v.idempotencyKey(req.get('Idempotency-Key'));
      const amount = v.amount(rules, v.parseBody(req.body, ['amount']).amount);
      const account = await accounts.account(param(req, 'id'));
      const result = await accounts.topUp(account.id, amount, idem, operator(req, res));
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(result.replayed ? 200 : 201).json({
        accountId: account.id,
        entry: ledgerView(rules, result.entry),
        balance: money(rules, result.balance),
        replayed: result.replayed,
      });
    },
  });
}

/** Receipts read per page when the refunds of an account are gathered. */
const RECEIPT_PAGE = 1000;

/**
 * Register GET /accounts/:id/refunds: the account's credit notes (refunds and lost disputes of its top-ups), newest
 * first, with the totals refunded and owed (refunded units the balance no longer held).
 */
export function refundRoutes(router: Router, deps: RouteDeps): void {
  const { rules, accounts, store } = deps;
  route(router, '/accounts/:id/refunds', {
    get: async (req, res) => {
      v.parseQuery(req.query, []);
      const account = await accounts.account(param(req, 'id'));
      const notes = [];
      for (let before: string | undefined; ;) {
        const page = await store.listReceipts(account.id, RECEIPT_PAGE, before);
        notes.push(...page.filter((r) => r.kind === 'credit_note'));
        if (page.length < RECEIPT_PAGE) break;
        before = page[page.length - 1]?.number;
      }
      res.json({
        accountId: account.id,
        refunded: money(
          rules,
          notes.reduce((s, n) => s + n.amount, 0),
        ),
        owed: money(
          rules,
          notes.reduce((s, n) => s + n.owed, 0),
        ),
        creditNotes: notes.map((n) => creditNoteView(rules, n)),
      });
    },
  });
}
