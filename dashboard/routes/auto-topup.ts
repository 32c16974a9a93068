/**
 * Auto top-up pages: GET/POST /credit/auto-top-up (status, threshold and amount, the charges made), POST
 * /credit/auto-top-up/card (save a card on Stripe's page: 303 to a setup-mode Checkout Session) and POST
 * /credit/auto-top-up/card/remove.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { audit } from '../../gateway/accounts/audit';
import { customer } from '../actor';
import { AUTO_TOPUP_DEFAULTS } from '../config';
import type { AppContext } from '../context';
import { DashboardError, invalidField } from '../errors';
import { handle, requirePageSession, signed } from '../middleware';
import * as v from '../validate';
import { autoTopUpPage, type AutoTopUpView } from '../views/auto-topup';
import { pageContext } from './pages';

/** Charges listed on the page (newest first). */
const ATTEMPT_ROWS = 20;

const CARD_MESSAGES: Record<string, string> = {
  pending:
    'Card saved with Stripe. It shows here as soon as Stripe confirms it to us (usually within seconds).',
  cancelled: 'No card was saved.',
};

/** Register the auto top-up pages. */
export function autoTopUpRoutes(router: Router, ctx: AppContext): void {
  const get = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.get(path, requirePageSession, handle(fn));
  const post = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.post(path, requirePageSession, handle(fn));
  const body = (req: Request): Record<string, unknown> =>
    (req.body as Record<string, unknown> | undefined) ?? {};
  const maxFailures = { ...AUTO_TOPUP_DEFAULTS, ...ctx.config.payments?.stripe?.autoTopUp }.maxFailures;

  const view = async (res: Response, status: number, form: AutoTopUpView['form'] = {}) => {
    const id = signed(res).account.id;
    const [settings, attempts, account] = await Promise.all([
      ctx.store.autoTopUp(id),
      ctx.store.autoTopUpAttempts(id, ATTEMPT_ROWS),
      ctx.store.getAccount(id),
    ]);
    res
      .status(status)
      .type('html')
      .send(
        autoTopUpPage(pageContext(ctx, res), {
          available: ctx.autoTopUp !== null,
          settings,
          attempts,
          balance: account?.balance ?? signed(res).account.balance,
          maxFailures,
          formId: randomBytes(12).toString('base64url'),
          form,
        }),
      );
  };

  const service = () => {
    if (ctx.autoTopUp === null) {
      throw new DashboardError('payments_not_configured', 'Auto top-up needs card payments through Stripe');
    }
    return ctx.autoTopUp;
  };

  get('/credit/auto-top-up', async (req, res) => {
    const card = req.query['card'];
    await view(
      res,
      200,
      typeof card === 'string' && CARD_MESSAGES[card] ? { message: CARD_MESSAGES[card] } : {},
    );
  });

  post('/credit/auto-top-up', async (req, res) => {
    const auto = service();
    const b = body(req);
    const { account } = signed(res);
    const enabled = b['enabled'] === 'on' || b['enabled'] === 'true' || b['enabled'] === true;
    const errors: NonNullable<NonNullable<AutoTopUpView['form']>['errors']> = {};
    const parse = (name: 'threshold' | 'amount'): number | null => {
      try {
        return v.amount(ctx.rules, b[name]);
      } catch (err) {
        if (!(err instanceof DashboardError)) throw err;
        errors[name] = err.message;
        return null;
      }
    };
    const threshold = parse('threshold');
    const amount = parse('amount');
    if (amount !== null) {
      const refused = auto.checkAmount(amount);
      if (refused) errors.amount = refused;
    }
    const settings = await ctx.store.autoTopUp(account.id);
    if (enabled && settings.paymentMethodId === null) errors.enabled = 'Save a card first';
    const str = (k: string): string => (typeof b[k] === 'string' ? (b[k] as string) : '');
    if (Object.keys(errors).length > 0) {
      await view(res, 400, { threshold: str('threshold'), amount: str('amount'), enabled, errors });
      return;
    }
    await ctx.store.setAutoTopUp(account.id, enabled, threshold, amount, ctx.clock.now());
    audit(ctx.logger, customer(ctx, req, res, account.id), 'autotopup.updated', {
      account: account.id,
      detail: { enabled: enabled ? 'on' : 'off', threshold, amount },
    });
    await view(res, 200, { message: enabled ? 'Auto top-up is on.' : 'Auto top-up settings saved (off).' });
  });

  post('/credit/auto-top-up/card', async (req, res) => {
    const auto = service();
    const formId = body(req)['formId'];
    if (typeof formId !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(formId)) {
      throw invalidField('formId', 'The form has expired; reload the page and try again');
    }
    const { account } = signed(res);
    const url = await auto.startCardSetup(account, formId);
    res.redirect(303, url);
  });

  post('/credit/auto-top-up/card/remove', async (req, res) => {
    service();
    const { account } = signed(res);
    await ctx.store.removeAutoTopUpCard(account.id, ctx.clock.now());
    audit(ctx.logger, customer(ctx, req, res, account.id), 'autotopup.card_removed', { account: account.id });
    await view(res, 200, { message: 'Card removed; auto top-up is off.' });
  });
}
