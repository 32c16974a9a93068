/**
 * The account actions. Support: suspend, resume, revoke a key. Admin: also credit (with a reason), the B plan, A's
 * package and a key's own burst limits. Each writes its audit line naming the operator (the accounts service's, or here for the status).
 */
import type { Request, RequestHandler, Router } from 'express';
import { handle } from '../../dashboard/middleware';
import { InputError } from '../../gateway/accounts/errors';
import { parseMoney } from '../../gateway/policy/ruleset';
import { MAX_BURST } from '../../gateway/store/checks';
import type { KeyBurst } from '../../gateway/store/types';
import type { ConsoleContext } from '../context';
import { frameOf, operatorActor, signed } from '../context';
import { ConsoleError, invalid } from '../errors';
import { BASE } from '../views/layout';
import { packagePage } from '../views/pages';

/** Only operators with the admin role: 403 for support. */
export const adminOnly: RequestHandler = (_req, res, next) => {
  next(
    signed(res).operator.role === 'admin'
      ? undefined
      : new ConsoleError('forbidden', 'This action needs the admin role'),
  );
};

const field = (req: Request, name: string, max: number): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  if (v === undefined || v === '') return '';
  if (typeof v !== 'string') throw invalid(name, 'Give it once, as text');
  if (v.length > max) throw invalid(name, `At most ${max} characters`);
  return v.trim();
};

const back = (id: string, done: string): string => `${BASE}/accounts/${id}?done=${done}`;

/** The action routes. */
export function actionRoutes(router: Router, ctx: ConsoleContext): void {
  const { accounts, store, rules } = ctx;
  const id = (req: Request): string => String(req.params['id']);

  for (const [action, status, audited] of [
    ['suspend', 'suspended', 'account.suspended'],
    ['resume', 'active', 'account.reinstated'],
  ] as const) {
    router.post(
      `/accounts/:id/${action}`,
      handle(async (req, res) => {
        const account = await accounts.account(id(req));
        await store.setAccountStatus(account.id, status);
        accounts.audit(operatorActor(req, res), audited, { account: account.id });
        res.redirect(303, back(account.id, action));
      }),
    );
  }

  router.post(
    '/accounts/:id/keys/:keyId/revoke',
    handle(async (req, res) => {
      const account = await accounts.account(id(req));
      const key = await accounts.key(String(req.params['keyId']), account.id);
      await accounts.revokeKey(key, operatorActor(req, res));
      res.redirect(303, back(account.id, 'revoke'));
    }),
  );

  // A key's own burst limits (admin): each window a whole number of requests, empty for the deployment's limit.
  router.post(
    '/accounts/:id/keys/:keyId/burst',
    adminOnly,
    handle(async (req, res) => {
      const burst: KeyBurst = {};
      const wrong = (name: 'perSecond' | 'perMinute') =>
        invalid(
          name,
          `${name === 'perSecond' ? 'Per second' : 'Per minute'}: enter a whole number of requests from 1 to ${MAX_BURST}, or leave it empty for the deployment's limit`,
        );
      for (const name of ['perSecond', 'perMinute'] as const) {
        const text = field(req, name, 10);
        if (text === '') continue;
        if (!/^\d+$/.test(text)) throw wrong(name);
        burst[name] = Number(text);
      }
      const account = await accounts.account(id(req));
      const key = await accounts.key(String(req.params['keyId']), account.id);
      await accounts.setKeyBurst(key, burst, operatorActor(req, res)).catch((err: unknown) => {
        throw err instanceof InputError && (err.field === 'perSecond' || err.field === 'perMinute')
          ? wrong(err.field)
          : err;
      });
      res.redirect(303, back(account.id, 'burst'));
    }),
  );

  router.post(
    '/accounts/:id/credit',
    adminOnly,
    handle(async (req, res) => {
      const units = parseMoney(rules, field(req, 'amount', 20));
      if (units === null || units <= 0) {
        throw invalid(
          'amount',
          rules.moneyDecimals === 0
            ? 'Enter a whole number of credits above 0'
            : 'Enter EUR above 0, e.g. 12.50',
        );
      }
      const reason = field(req, 'reason', 200);
      if (reason === '') throw invalid('reason', 'Say why (it goes to the audit log)');
      const account = await accounts.account(id(req));
      await accounts.topUp(account.id, units, null, operatorActor(req, res, reason));
      res.redirect(303, back(account.id, 'credit'));
    }),
  );

  router.post(
    '/accounts/:id/plan',
    adminOnly,
    handle(async (req, res) => {
      accounts.require('plan');
      const day = field(req, 'until', 10);
      let until: number | null = null;
      if (day !== '') {
        const start = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
        if (Number.isNaN(start)) throw invalid('until', 'Give a day as YYYY-MM-DD');
        until = start + 86_400_000; // the plan covers the whole day given
        if (until <= ctx.clock.now()) throw invalid('until', 'Give a day that has not ended');
      }
      const account = await accounts.account(id(req));
      await accounts.setPlan(account.id, until, operatorActor(req, res));
      res.redirect(303, back(account.id, 'plan'));
    }),
  );

  router.post(
    '/accounts/:id/package',
    adminOnly,
    handle(async (req, res) => {
      accounts.require('packages');
      const account = await accounts.account(id(req));
      const bought = await accounts.buyPackage(account, null, operatorActor(req, res));
      // The package's key is new: its secret is shown here once (as the admin API answers it), never stored.
      res.type('html').send(packagePage(frameOf(ctx, res), account.id, bought.key.prefix, bought.secret));
    }),
  );
}
