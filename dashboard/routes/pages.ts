/** The signed-in pages (server-rendered; every operation also works without JavaScript). */
import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, requirePageSession, signed } from '../middleware';
import * as credit from '../services/credit';
import { customer } from '../actor';
import { creditPrice, decimalPrice } from '../money';
import { planView, startPlan } from '../services/unlimited';
import * as keys from '../services/keys';
import { usageCsv, usageCsvName } from '../services/csv';
import { usageReport } from '../services/usage';
import { overviewState } from '../services/overview';
import { lastUsed } from '../services/last-used';
import { parseRange } from '../services/usage-range';
import { iso } from '../services/views';
import * as wl from '../services/whitelist';
import * as v from '../validate';
import { creditPage } from '../views/credit';
import * as kv from '../views/keys';
import type { PageContext } from '../views/layout';
import { overviewPage } from '../views/overview';
import { usagePage } from '../views/usage';
import { whitelistPage } from '../views/whitelist';
import { firstRequest } from '../views/first-request';

/** What every signed-in page knows, from the request's session. */
export function pageContext(ctx: AppContext, res: Response): PageContext {
  const { session, account } = signed(res);
  return {
    brand: ctx.brand,
    rules: ctx.rules,
    csrf: session.csrf,
    email: account.email,
    suspended: account.status === 'suspended',
    notifications: ctx.notifications !== undefined,
    unverified: account.emailVerifiedAt === null,
  };
}

const field = (req: Request, name: string): unknown =>
  (req.body as Record<string, unknown> | undefined)?.[name];
const send = (res: Response, status: number, body: string): void =>
  void res.status(status).type('html').send(body);

/** The error of a form, or rethrow what is not a customer error. */
function formError(err: unknown): DashboardError {
  if (err instanceof DashboardError && err.code !== 'not_found') return err;
  throw err;
}

/** The credit page's note after the plan's payment page sent the customer back (?plan=pending|cancelled). */
function planMessage(q: unknown): string | undefined {
  if (q === 'pending')
    return 'Payment received by the payment processor; the Unlimited plan is extended when it settles (card: within a minute; crypto: once confirmed).';
  return q === 'cancelled' ? 'Payment cancelled; nothing was charged.' : undefined;
}

/** Register the pages. */
export function pageRoutes(router: Router, ctx: AppContext): void {
  const get = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.get(path, requirePageSession, handle(fn));
  const post = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.post(path, requirePageSession, handle(fn));
  const me = (req: Request, res: Response) => customer(ctx, req, res, signed(res).account.id);

  get('/', async (req, res) => {
    const { account } = signed(res);
    const [k, usage] = await Promise.all([
      keys.listKeys(ctx, account.id),
      usageReport(ctx, account.id, 'account'),
    ]);
    const state = await overviewState(ctx, account, usage);
    send(
      res,
      200,
      overviewPage(pageContext(ctx, res), {
        balance: account.balance,
        keys: k,
        usage,
        unlimitedUntil: iso(account.unlimitedUntil),
        welcome: req.query['welcome'] === '1',
        state,
      }),
    );
  });

  const keysList = async (res: Response, status: number, form: { label?: string; error?: string } = {}) => {
    const list = await keys.listKeys(ctx, signed(res).account.id);
    send(res, status, kv.keysPage(pageContext(ctx, res), list, form, await lastUsed(ctx, list)));
  };

  get('/keys', async (_req, res) => keysList(res, 200));

  post('/keys', async (req, res) => {
    const raw = field(req, 'label');
    try {
      const created = await keys.createKey(
        ctx,
        signed(res).account.id,
        v.label(ctx.rules, raw),
        me(req, res),
        { test: field(req, 'test') === 'on' },
      );
      send(
        res,
        201,
        kv.keyCreatedPage(
          pageContext(ctx, res),
          created.key,
          created.secret,
          created.googleKey,
          firstRequest(ctx.deployment, created.secret),
        ),
      );
    } catch (err) {
      const e = formError(err);
      await keysList(res, e.status, { label: typeof raw === 'string' ? raw : '', error: e.message });
    }
  });

  get('/keys/:id', async (req, res) => {
    const detail = await keys.keyDetail(ctx, signed(res).account.id, v.id(req.params['id']));
    const form = req.query['renamed'] === '1' ? { message: 'Label saved.' } : {};
    const restricted = req.query['restricted'] === '1' ? { message: 'Restrictions saved.' } : {};
    send(res, 200, kv.keyDetailPage(pageContext(ctx, res), detail, form, restricted));
  });

  /** Rename (issue 15 item 4): saved → back to the key with a note; refused → the error next to the field. */
  post('/keys/:id/label', async (req, res) => {
    const { account } = signed(res);
    const id = v.id(req.params['id']);
    const raw = field(req, 'label');
    try {
      await keys.renameKey(ctx, account.id, id, v.label(ctx.rules, raw), me(req, res));
      res.redirect(303, `/keys/${id}?renamed=1`);
    } catch (err) {
      const e = formError(err);
      const detail = await keys.keyDetail(ctx, account.id, id);
      const form = { label: typeof raw === 'string' ? raw : '', error: e.message };
      send(res, e.status, kv.keyDetailPage(pageContext(ctx, res), detail, form));
    }
  });

  get('/keys/:id/revoke', async (req, res) => {
    const detail = await keys.keyDetail(ctx, signed(res).account.id, v.id(req.params['id']));
    if (detail.status !== 'active') return void res.redirect(303, `/keys/${detail.id}`);
    send(res, 200, kv.revokeConfirmPage(pageContext(ctx, res), detail));
  });

  post('/keys/:id/revoke', async (req, res) => {
    const id = v.id(req.params['id']);
    try {
      await keys.revokeKey(ctx, signed(res).account.id, id, me(req, res));
    } catch (err) {
      if (!(err instanceof DashboardError && err.code === 'already_revoked')) throw err;
    }
    res.redirect(303, `/keys/${id}`);
  });

  const whitelistView = async (
    res: Response,
    status: number,
    form: Parameters<typeof whitelistPage>[2] = {},
  ) =>
    send(
      res,
      status,
      whitelistPage(pageContext(ctx, res), await wl.listWhitelist(ctx, signed(res).account.id), form),
    );

  get('/whitelist', async (_req, res) => whitelistView(res, 200));

  post('/whitelist', async (req, res) => {
    const raw = field(req, 'address');
    try {
      const entry = await wl.addWhitelist(ctx, signed(res).account.id, raw, me(req, res));
      await whitelistView(res, 201, { message: `${entry.address} added.` });
    } catch (err) {
      const e = formError(err);
      await whitelistView(res, e.status, { address: typeof raw === 'string' ? raw : '', error: e.message });
    }
  });

  post('/whitelist/:id/delete', async (req, res) => {
    await wl.removeWhitelist(ctx, signed(res).account.id, v.id(req.params['id']), me(req, res));
    await whitelistView(res, 200, { message: 'Address removed.' });
  });

  const creditView = async (res: Response, status: number, form: credit.CreditForm = {}) => {
    const account = (await ctx.store.getAccount(signed(res).account.id)) ?? signed(res).account;
    const view = await credit.creditSummary(ctx, account);
    const card = ctx.payments.name === 'stripe' ? ctx.config.payments?.stripe : undefined;
    const cardCreditPrice =
      card && ctx.rules.moneyDecimals === 0
        ? creditPrice(card.priceCurrency, card.unitsPerMinorUnit)
        : undefined;
    const plan = ctx.config.unlimitedPlanPrice;
    const unlimited = ctx.rules.unlimited === 'account-plan' ? await planView(ctx, account) : undefined;
    const crypto = ctx.config.payments?.crypto?.btcpay;
    const cryptoCreditPrice =
      crypto && ctx.rules.moneyDecimals === 0
        ? creditPrice(crypto.priceCurrency, crypto.unitsPerMinorUnit)
        : undefined;
    send(
      res,
      status,
      creditPage(pageContext(ctx, res), {
        ...view,
        ...(cardCreditPrice ? { cardCreditPrice } : {}),
        ...(cryptoCreditPrice ? { cryptoCreditPrice } : {}),
        ...(plan && ctx.rules.unlimited !== 'package-key'
          ? { planPrice: { price: decimalPrice(plan.amount, plan.currency), period: plan.period } }
          : {}),
        topUpId: randomBytes(12).toString('base64url'),
        ...(unlimited ? { plan: { ...unlimited, formId: randomBytes(12).toString('base64url') } } : {}),
        form,
      }),
    );
  };

  get('/credit', async (req, res) => {
    const t = req.query['topup'];
    const message =
      t === 'pending'
        ? 'Payment received by the payment processor; your balance updates when it settles (card: within a minute; crypto: once confirmed).'
        : t === 'cancelled'
          ? 'Payment cancelled; nothing was charged.'
          : planMessage(req.query['plan']);
    await creditView(res, 200, message ? { message } : {});
  });

  post('/credit/top-up', async (req, res) => {
    const raw = field(req, 'amount');
    try {
      const r = await credit.topUp(
        ctx,
        signed(res).account,
        raw,
        field(req, 'topUpId'),
        me(req, res),
        field(req, 'method'),
      );
      if (r.kind === 'redirect') return void res.redirect(303, r.url);
      const receipt = r.receipt ? ` Receipt ${r.receipt} is on the Billing page.` : '';
      await creditView(res, 200, { message: `Top-up complete.${receipt}` });
    } catch (err) {
      const e = formError(err);
      await creditView(res, e.status, { amount: typeof raw === 'string' ? raw : '', error: e.message });
    }
  });

  // B: buy or renew the Unlimited plan (services/unlimited.ts): recorded at once (demo) or on the provider's page.
  post('/unlimited', async (req, res) => {
    try {
      const account = (await ctx.store.getAccount(signed(res).account.id)) ?? signed(res).account;
      const r = await startPlan(ctx, account, field(req, 'planId'), field(req, 'method'), me(req, res));
      if (r.kind === 'redirect') return void res.redirect(303, r.url);
      const until = new Date(r.purchase.period.endsAt).toISOString().slice(0, 16).replace('T', ' ');
      const receipt = r.purchase.receipt.number;
      const message = `Unlimited plan paid until ${until} UTC. Receipt ${receipt} is on the Billing page.`;
      await creditView(res, 200, { message });
    } catch (err) {
      const e = formError(err);
      if (e.code === 'not_in_rule_set') throw e; // A: no plan section to show it in
      await creditView(res, e.status, { planError: e.message });
    }
  });

  post('/packages', async (req, res) => {
    const { account } = signed(res);
    const raw = field(req, 'label');
    try {
      const label = typeof raw === 'string' && raw.trim() !== '' ? v.label(ctx.rules, raw) : null;
      const bought = await keys.buyPackage(ctx, account.id, account.balance, label, me(req, res));
      const first = firstRequest(ctx.deployment, bought.secret);
      send(
        res,
        201,
        kv.keyCreatedPage(pageContext(ctx, res), bought.key, bought.secret, bought.googleKey, first),
      );
    } catch (err) {
      const e = formError(err);
      await creditView(res, e.status, { packageError: e.message });
    }
  });

  const usageSubject = (req: Request): string => {
    const q = req.query['subject'];
    return typeof q === 'string' && q !== 'account' ? v.id(q) : 'account';
  };

  get('/usage', async (req, res) => {
    const { account } = signed(res);
    const [report, k] = await Promise.all([
      usageReport(ctx, account.id, usageSubject(req), parseRange(ctx.clock.now(), req.query)),
      keys.listKeys(ctx, account.id),
    ]);
    send(res, 200, usagePage(pageContext(ctx, res), report, k));
  });

  /** The same 30 days as a CSV download (issue 15 item 7). */
  get('/usage.csv', async (req, res) => {
    const { account } = signed(res);
    const subject = usageSubject(req);
    const report = await usageReport(ctx, account.id, subject, parseRange(ctx.clock.now(), req.query));
    const key =
      subject === 'account' ? null : (await keys.listKeys(ctx, account.id)).find((k) => k.id === subject);
    const name = key ? (key.label ?? `${key.prefix}…`) : 'account';
    res
      .status(200)
      .type('text/csv; charset=utf-8')
      .attachment(usageCsvName(report))
      .send(usageCsv(report, name));
  });
}
