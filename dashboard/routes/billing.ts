/**
 * Billing pages (issue 15 item 3, D31): GET/POST /billing (billing details, receipts list), GET /receipts/:number
 * (print-friendly page) and /receipts/:number.pdf (download). Every receipt is the signed-in account's: another
 * account's number answers 404 like an unknown one.
 */
import type { Request, Response, Router } from 'express';
import { audit } from '../../gateway/accounts/audit';
import { customer } from '../actor';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, requirePageSession, signed } from '../middleware';
import { receiptDoc } from '../receipt-doc';
import { receiptPdf } from '../receipt-pdf';
import type { Receipt } from '../../gateway/store/receipts';
import type { PlanPeriod } from '../../gateway/store/plan-periods';
import { parseBilling, RECEIPT_ROWS, receiptOf, receiptsPage } from '../services/billing';
import { billingPage, receiptPage, type BillingView } from '../views/billing';
import { pageContext } from './pages';

/** B: the account's Unlimited plan periods by id (a plan receipt names its period); none in rule set A. */
async function planPeriodsOf(ctx: AppContext, accountId: string): Promise<Map<string, PlanPeriod>> {
  if (ctx.rules.unlimited !== 'account-plan') return new Map();
  return new Map((await ctx.store.planPeriods(accountId, 1000)).map((p) => [p.id, p]));
}

/** Register the billing pages. */
export function billingRoutes(router: Router, ctx: AppContext): void {
  const get = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.get(path, requirePageSession, handle(fn));
  const post = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.post(path, requirePageSession, handle(fn));

  const view = async (res: Response, status: number, form: BillingView['form'] = {}, before?: unknown) => {
    const { account } = signed(res);
    const [billing, receipts, periods] = await Promise.all([
      ctx.store.getBilling(account.id),
      receiptsPage(ctx, account.id, before),
      planPeriodsOf(ctx, account.id),
    ]);
    const docs = receipts.map((r) => ({
      receipt: r,
      doc: receiptDoc(r, ctx.rules, ctx.brand.productName, account.email, periods.get(r.sourceId)),
    }));
    res
      .status(status)
      .type('html')
      .send(
        billingPage(pageContext(ctx, res), {
          billing,
          receipts: docs,
          form,
          page: {
            after: before === undefined ? null : String(before),
            older:
              receipts.length === RECEIPT_ROWS ? (receipts[receipts.length - 1] as Receipt).number : null,
          },
        }),
      );
  };

  // ?before=NUMBER: the page of receipts older than that one (the "Older receipts" link).
  get('/billing', async (req, res) => view(res, 200, {}, req.query['before']));

  post('/billing', async (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    try {
      const details = parseBilling(body);
      const accountId = signed(res).account.id;
      await ctx.store.setBilling(accountId, details, ctx.clock.now());
      // Which fields are set, never their values (personal data stays out of the logs).
      const given = (Object.keys(details) as (keyof typeof details)[]).filter((k) => details[k] !== null);
      audit(ctx.logger, customer(ctx, req, res, accountId), 'billing.updated', {
        account: accountId,
        detail: { fields: given.join(',') },
      });
      await view(res, 200, { message: 'Billing details saved. New receipts will show them.' });
    } catch (err) {
      if (!(err instanceof DashboardError) || err.field === undefined) throw err;
      const str = (k: string): string => (typeof body?.[k] === 'string' ? (body[k] as string) : '');
      await view(res, err.status, {
        values: {
          billingName: str('billingName'),
          billingAddress: str('billingAddress'),
          vatId: str('vatId'),
          country: str('country'),
        },
        error: { field: err.field, message: err.message },
      });
    }
  });

  const docOf = async (req: Request, res: Response, number: unknown) => {
    const { account } = signed(res);
    const receipt = await receiptOf(ctx, account.id, number);
    const periods = receipt.kind === 'plan' ? await planPeriodsOf(ctx, account.id) : new Map();
    return receiptDoc(
      receipt,
      ctx.rules,
      ctx.brand.productName,
      account.email,
      periods.get(receipt.sourceId),
    );
  };

  // The PDF route first: "/receipts/2026-000001.pdf" must not be read as a receipt number.
  router.get(
    /^\/receipts\/(\d{4}-\d{6,12})\.pdf$/,
    requirePageSession,
    handle(async (req, res) => {
      const doc = await docOf(req, res, (req.params as Record<string, string>)['0']);
      const pdf = await receiptPdf(doc);
      res
        .status(200)
        .type('application/pdf')
        .setHeader('Content-Disposition', `attachment; filename="receipt-${doc.number}.pdf"`);
      res.send(pdf);
    }),
  );

  get('/receipts/:number', async (req, res) => {
    const doc = await docOf(req, res, req.params['number']);
    res
      .status(200)
      .type('html')
      .send(receiptPage(pageContext(ctx, res), doc));
  });
}
