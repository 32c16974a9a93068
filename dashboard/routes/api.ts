/**
 * The account-scoped JSON API behind the pages (dashboard/openapi.yaml): the same operations, only on the signed-in
 * account. State-changing calls need the session's CSRF token in `X-CSRF-Token`.
 */
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../context';
import { handle, requireApiSession, signed } from '../middleware';
import * as credit from '../services/credit';
import { customer } from '../actor';
import * as keys from '../services/keys';
import { usageReport } from '../services/usage';
import { iso, ledgerView, money } from '../services/views';
import * as wl from '../services/whitelist';
import * as v from '../validate';

type Fn = (req: Request, res: Response) => Promise<void>;

const body = (req: Request): Record<string, unknown> => {
  const b: unknown = req.body;
  return b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
};

/** Register /api/... */
export function apiRoutes(router: Router, ctx: AppContext): void {
  const on = (method: 'get' | 'post' | 'patch' | 'delete', path: string, fn: Fn) =>
    router[method](`/api${path}`, requireApiSession, handle(fn));
  const accountId = (res: Response) => signed(res).account.id;
  const me = (req: Request, res: Response) => customer(ctx, req, res, accountId(res));
  const fresh = async (res: Response) => (await ctx.store.getAccount(accountId(res))) ?? signed(res).account;

  on('get', '/session', async (_req, res) => {
    const { account, session } = signed(res);
    res.json({
      account: {
        id: account.id,
        email: account.email,
        name: account.name,
        status: account.status,
        balance: money(ctx.rules, account.balance),
        unlimitedUntil: iso(account.unlimitedUntil),
        emailVerified: account.emailVerifiedAt !== null,
      },
      ruleSet: ctx.rules.name,
      csrfToken: session.csrf,
    });
  });

  on('get', '/keys', async (_req, res) => void res.json({ keys: await keys.listKeys(ctx, accountId(res)) }));

  on('post', '/keys', async (req, res) => {
    const created = await keys.createKey(
      ctx,
      accountId(res),
      v.label(ctx.rules, body(req)['label']),
      me(req, res),
      { test: body(req)['test'] === true },
    );
    res.status(201).json({ ...created.key, key: created.secret, googleKey: created.googleKey });
  });

  on(
    'get',
    '/keys/:id',
    async (req, res) => void res.json(await keys.keyDetail(ctx, accountId(res), v.id(req.params['id']))),
  );

  on('patch', '/keys/:id', async (req, res) => {
    const raw = body(req)['label'];
    const label = v.label(ctx.rules, raw === null ? undefined : raw);
    res.json(await keys.renameKey(ctx, accountId(res), v.id(req.params['id']), label, me(req, res)));
  });

  on('post', '/keys/:id/revoke', async (req, res) => {
    res.json(await keys.revokeKey(ctx, accountId(res), v.id(req.params['id']), me(req, res)));
  });

  on(
    'get',
    '/whitelist',
    async (_req, res) => void res.json({ entries: await wl.listWhitelist(ctx, accountId(res)) }),
  );

  on('post', '/whitelist', async (req, res) => {
    res.status(201).json(await wl.addWhitelist(ctx, accountId(res), body(req)['address'], me(req, res)));
  });

  on('delete', '/whitelist/:id', async (req, res) => {
    await wl.removeWhitelist(ctx, accountId(res), v.id(req.params['id']), me(req, res));
    res.status(204).end();
  });

  on('get', '/credit', async (_req, res) => {
    const { keyNames: _names, ...s } = await credit.creditSummary(ctx, await fresh(res));
    res.json({
      ...s,
      balance: money(ctx.rules, s.balance),
      ledger: s.ledger.map((e) => ledgerView(ctx.rules, e)),
    });
  });

  on('post', '/credit/top-ups', async (req, res) => {
    const b = body(req);
    const r = await credit.topUp(
      ctx,
      await fresh(res),
      b['amount'],
      req.get('idempotency-key') ?? b['idempotencyKey'],
      me(req, res),
      b['method'],
    );
    if (r.kind === 'redirect') return void res.status(202).json({ status: 'pending', paymentUrl: r.url });
    res.status(201).json({ status: 'credited', balance: money(ctx.rules, r.balance) });
  });

  on('post', '/packages', async (req, res) => {
    const account = await fresh(res);
    const raw = body(req)['label'];
    const label = typeof raw === 'string' && raw.trim() !== '' ? v.label(ctx.rules, raw) : null;
    const bought = await keys.buyPackage(ctx, account.id, account.balance, label, me(req, res));
    res.status(201).json({
      ...bought.key,
      key: bought.secret,
      googleKey: bought.googleKey,
      price: bought.price,
      balance: bought.balance,
    });
  });

  on('get', '/usage', async (req, res) => {
    const q = req.query['subject'];
    const subject = q === undefined || q === 'account' ? 'account' : v.id(q);
    res.json(await usageReport(ctx, accountId(res), subject));
  });
}
