/** The overview, the search and the account page (every role). */
import type { Request, Router } from 'express';
import { handle } from '../../dashboard/middleware';
import { utcDay } from '../../gateway/core/clock';
import { canonicalKey, hashKey } from '../../gateway/core/keys';
import { parseAddress } from '../../gateway/net/address';
import type { Account } from '../../gateway/store/types';
import type { ConsoleContext } from '../context';
import { frameOf } from '../context';
import { invalid } from '../errors';
import { BASE } from '../views/layout';
import { accountPage, auditPage, overviewPage, searchPage, type AccountView, type Hit } from '../views/pages';

const DAY_MS = 86_400_000;
/** Audit lines per page of the audit log, and on the account page. */
export const AUDIT_PAGE = 50;
const AUDIT_ON_ACCOUNT = 10;
/** Longest search text (a pasted key, an e-mail address): longer is refused, never run. */
export const MAX_SEARCH = 200;
const FLASH: Record<string, string> = {
  credit: 'Credit added.',
  suspend: 'The account is suspended.',
  resume: 'The account is active again.',
  revoke: 'The key is revoked.',
  burst: 'The burst limits of the key are saved.',
  plan: 'The plan is set.',
  package: 'The package is bought.',
};

/** A single query parameter as text, or a 400. */
function queryText(req: Request, name: string, max: number): string | null {
  const v = req.query[name];
  if (v === undefined) return null;
  if (typeof v !== 'string') throw invalid(name, `Give ${name} once, as text`);
  if (v.length > max) throw invalid(name, `At most ${max} characters`);
  return v;
}

/** The accounts that `q` names: by e-mail, account id, key (whole or prefix), address, receipt number. */
export async function search(ctx: ConsoleContext, q: string): Promise<Hit[]> {
  const { store } = ctx;
  const hits = new Map<string, Hit>();
  const add = (a: Account | null, why: string): void => {
    if (a && !hits.has(a.id)) hits.set(a.id, { account: a, why });
  };
  if (q.includes('@')) add(await store.findAccountByEmail(q), 'e-mail');
  if (/^acc_[A-Za-z0-9]{1,60}$/.test(q)) add(await store.getAccount(q), 'account id');
  const key = canonicalKey(q);
  if (key !== null) {
    const found = await store.findKeyByHash(hashKey(key, ctx.pepper));
    if (found) add(await store.getAccount(found.key.accountId), `key ${found.key.prefix}…`);
  } else if (/^gk_[A-Za-z0-9_]{1,60}$/.test(q)) {
    const prefix = q.slice(0, q.startsWith('gk_test_') ? 13 : 8);
    for (const k of await store.findKeysByPrefix(prefix, 20)) {
      add(await store.getAccount(k.accountId), `key prefix ${k.prefix}…`);
    }
  }
  const address = parseAddress(q);
  if (address !== null && ctx.rules.whitelist) {
    add(await store.findWhitelistedAccount(address.toString()), 'whitelisted address');
  }
  if (/^\d{4}-\d{1,10}$/.test(q)) {
    const id = await store.receiptAccount(q);
    if (id !== null) add(await store.getAccount(id), `receipt ${q}`);
  }
  return [...hits.values()];
}

/** The data of the account page. */
async function accountView(ctx: ConsoleContext, id: string): Promise<AccountView> {
  const { accounts, store, clock, rules } = ctx;
  const account = await accounts.account(id);
  const now = clock.now();
  const keys = (await accounts.keys(id)).slice(0, 100);
  const details = await Promise.all(keys.map((k) => accounts.keyDetail(k)));
  const to = utcDay(now);
  const from = utcDay(now - 29 * DAY_MS);
  const rows = await store.usage(
    keys.map((k) => `key:${k.id}`),
    from,
    to,
  );
  const usage: AccountView['usage'] = [];
  for (let t = now - 29 * DAY_MS; utcDay(t) <= to; t += DAY_MS) {
    const day = utcDay(t);
    const of = rows.filter((r) => r.day === day);
    usage.push({
      day,
      free: of.reduce((s, r) => s + r.free, 0),
      billed: of.reduce((s, r) => s + r.billed, 0),
      refused: of.reduce((s, r) => s + r.refused, 0),
    });
  }
  return {
    account,
    keys: details.map((d) => ({ key: d.key, capacity: d.slotCapacity, slots: d.slots })),
    whitelist: rules.whitelist ? await store.listWhitelist(id) : null,
    ledger: await store.ledger(id, 50),
    usage,
    refusals: await store.recentRefusals(id, now - DAY_MS, 200),
    receipts: await store.listReceipts(id, 20),
    deliveries: await store.deliveryLog(id, 20),
    audit: await store.auditLog({ accountId: id, limit: AUDIT_ON_ACCOUNT }),
    now,
  };
}

/** A UTC day from the query, or the default; a malformed one is a 400. */
function dayParam(req: Request, name: string, fallback: string): string {
  const v = queryText(req, name, 10);
  if (v === null || v === '') return fallback;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) {
    throw invalid(name, 'Give a day as YYYY-MM-DD');
  }
  return v;
}

/** The read-only pages. */
export function pageRoutes(router: Router, ctx: ConsoleContext): void {
  router.get(
    '/',
    handle(async (req, res) => {
      const now = ctx.clock.now();
      const to = dayParam(req, 'to', utcDay(now));
      const from = dayParam(req, 'from', utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
      if (from > to) throw invalid('from', 'The first day comes after the last');
      if (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`) > 365 * DAY_MS) {
        throw invalid('from', 'At most a year');
      }
      const [overview, refusals, health] = await Promise.all([
        ctx.store.overview(from, to, 10),
        ctx.store.refusalsByCode(now - DAY_MS),
        ctx.readiness().catch(() => ({ readiness: false })),
      ]);
      res.type('html').send(overviewPage(frameOf(ctx, res), ctx.rules, overview, refusals, health));
    }),
  );

  router.get(
    '/search',
    handle(async (req, res) => {
      const q = (queryText(req, 'q', MAX_SEARCH) ?? '').trim();
      if (q === '') return void res.type('html').send(searchPage(frameOf(ctx, res), '', null));
      const hits = await search(ctx, q);
      if (hits.length === 1) return void res.redirect(303, `${BASE}/accounts/${hits[0]?.account.id}`);
      res.type('html').send(searchPage(frameOf(ctx, res), q, hits));
    }),
  );

  router.get(
    '/audit',
    handle(async (req, res) => {
      const account = (queryText(req, 'account', 40) ?? '').trim();
      if (account !== '' && !/^acc_[A-Za-z0-9]{1,60}$/.test(account))
        throw invalid('account', 'Give an account id (acc_…)');
      const cursor = queryText(req, 'before', 16);
      let before: number | undefined;
      if (cursor !== null && cursor !== '') {
        if (!/^[1-9]\d{0,14}$/.test(cursor))
          throw invalid('before', 'Give the page cursor as the link gives it');
        before = Number(cursor);
      }
      // This instance's lines of the actions just taken are in the store before they are listed.
      await ctx.accounts.settled();
      const entries = await ctx.store.auditLog({
        limit: AUDIT_PAGE + 1,
        ...(account !== '' ? { accountId: account } : {}),
        ...(before !== undefined ? { before } : {}),
      });
      const shown = entries.slice(0, AUDIT_PAGE);
      const next = entries.length > AUDIT_PAGE ? (shown[shown.length - 1]?.seq ?? null) : null;
      res.type('html').send(
        auditPage(frameOf(ctx, res), ctx.rules, shown, {
          accountId: account === '' ? null : account,
          next,
        }),
      );
    }),
  );

  router.get(
    '/accounts/:id',
    handle(async (req, res) => {
      const done = queryText(req, 'done', 20);
      await ctx.accounts.settled();
      const view = await accountView(ctx, String(req.params['id']));
      const flash = done !== null ? (FLASH[done] ?? null) : null;
      res.type('html').send(accountPage(frameOf(ctx, res, flash), ctx.rules, view));
    }),
  );
}
