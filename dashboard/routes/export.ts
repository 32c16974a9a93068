/**
 * The account's data export (`/settings/export.json`): everything a deletion erases, the customer's copy. The
 * ledger (up to EXPORT_LEDGER_ROWS) is read and written in pages of EXPORT_PAGE_ROWS, yielding to the event loop
 * between pages and waiting for the client to take each one, so an export never holds the process (nor the whole
 * file in memory). Each account may run one export at a time and EXPORT_LIMIT.perHour per hour (429, Retry-After).
 */
import type { Request, Response, Router } from 'express';
import type { Account } from '../../gateway/store/types';
import { customer } from '../actor';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, requirePageSession, signed } from '../middleware';
import { keyView, ledgerView, whitelistView } from '../services/views';

/** Days of usage in the data export. */
const EXPORT_USAGE_DAYS = 90;
/** Ledger rows in the data export (all of them for any account we know of). */
const EXPORT_LEDGER_ROWS = 100_000;
/** Ledger rows read and written per step. */
export const EXPORT_PAGE_ROWS = 200;
/** Receipts in the export: the newest 1,000 (the store lists at most that many at once). */
const EXPORT_RECEIPTS = 1000;
/** Exports per account: one at a time, `perHour` per hour; a refused one is asked to retry after `busySec`. */
export const EXPORT_LIMIT = { perHour: 10, windowMs: 3600_000, busySec: 10 };

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Ledger pages are made one at a time across every export of the app, a timer tick apart: however many exports
 * run, an event-loop turn holds at most one page's work (a read of EXPORT_PAGE_ROWS rows and their JSON), so the
 * API's requests wait for one page at most, not for one per export.
 */
class PageTurns {
  private tail: Promise<unknown> = Promise.resolve();
  /** Run `make` when every page asked for before it is made, then leave a tick before the next. */
  run<T>(make: () => Promise<T>): Promise<T> {
    const page = this.tail.then(make);
    this.tail = page.then(tick, tick);
    return page;
  }
}

/** Register the export route. */
export function exportRoutes(router: Router, ctx: AppContext): void {
  /** Accounts with an export running in this process. */
  const running = new Set<string>();
  const turns = new PageTurns();
  router.get(
    '/settings/export.json',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      if (running.has(account.id)) {
        throw new DashboardError(
          'rate_limited',
          'An export of this account is running; try again when it has finished.',
          undefined,
          EXPORT_LIMIT.busySec,
        );
      }
      const now = ctx.clock.now();
      const hit = await ctx.store.hitWindow(`export:${account.id}`, EXPORT_LIMIT.windowMs, now);
      if (hit.count > EXPORT_LIMIT.perHour) {
        const wait = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
        throw new DashboardError(
          'rate_limited',
          `${EXPORT_LIMIT.perHour} exports were made this hour. Try again in ${Math.ceil(wait / 60)} minutes.`,
          undefined,
          wait,
        );
      }
      running.add(account.id);
      try {
        await sendExport(ctx, turns, req, res, account, now);
      } finally {
        running.delete(account.id);
      }
    }),
  );
}

/** Everything but the ledger, as the export's JSON object. */
async function exportHead(ctx: AppContext, account: Account, now: number): Promise<Record<string, unknown>> {
  const { store, rules } = ctx;
  const [keys, whitelist, billing, receipts, alerts, endpoints] = await Promise.all([
    store.listKeys(account.id),
    rules.whitelist ? store.listWhitelist(account.id) : Promise.resolve([]),
    store.getBilling(account.id),
    store.listReceipts(account.id, EXPORT_RECEIPTS),
    store.notificationSettings(account.id),
    store.listWebhookEndpoints(account.id),
  ]);
  const to = new Date(now).toISOString().slice(0, 10);
  const from = new Date(now - (EXPORT_USAGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const usage = await store.usage([`account:${account.id}`, ...keys.map((k) => `key:${k.id}`)], from, to);
  return {
    exportedAt: new Date(now).toISOString(),
    ruleSet: rules.name,
    account: {
      id: account.id,
      email: account.email,
      name: account.name,
      status: account.status,
      balance: account.balance,
      unlimitedUntil: iso(account.unlimitedUntil),
      createdAt: new Date(account.createdAt).toISOString(),
      emailVerifiedAt: iso(account.emailVerifiedAt),
    },
    // Key restrictions too: deletion erases what is not in here, so the export is the customer's copy.
    keys: keys.map((k) => ({ ...keyView(k, now), restrictions: k.restrictions ?? null })),
    whitelist: whitelist.map(whitelistView),
    billing,
    receipts: receipts.map((r) => ({
      number: r.number,
      kind: r.kind,
      method: r.method,
      amount: r.amount,
      currency: r.currency,
      paid: r.paid,
      billing: r.billing,
      issuedAt: new Date(r.issuedAt).toISOString(),
    })),
    // Endpoint URLs and settings; never a signing secret (it was shown once, at creation).
    notifications: {
      emailAlerts: alerts.emailAlerts,
      lowBalanceThreshold: alerts.lowBalanceThreshold,
      webhooks: endpoints.map((e) => ({
        id: e.id,
        url: e.url,
        createdAt: new Date(e.createdAt).toISOString(),
      })),
    },
    usage: { from, to, rows: usage },
  };
}

/** Write one chunk; resolves when the client can take more (false: the client has gone). */
function write(res: Response, text: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(text)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** The export as JSON, its ledger streamed page by page (newest first, as before: the last member). */
async function sendExport(
  ctx: AppContext,
  turns: PageTurns,
  req: Request,
  res: Response,
  account: Account,
  now: number,
): Promise<void> {
  const head = JSON.stringify(await exportHead(ctx, account, now));
  ctx.accounts.audit(customer(ctx, req, res, account.id), 'account.exported', { account: account.id });
  res.setHeader('Content-Disposition', `attachment; filename="geocoding-account-${account.id}.json"`);
  res.setHeader('Cache-Control', 'no-store');
  res.status(200).type('application/json');
  try {
    if (!(await write(res, `${head.slice(0, -1)},"ledger":[`))) return;
    let before: string | undefined;
    for (let sent = 0; sent < EXPORT_LEDGER_ROWS;) {
      const limit = Math.min(EXPORT_PAGE_ROWS, EXPORT_LEDGER_ROWS - sent);
      const page = await turns.run(async () => {
        const entries = await ctx.store.ledger(account.id, limit, before);
        const text = entries.map((e) => JSON.stringify(ledgerView(ctx.rules, e))).join(',');
        return { count: entries.length, last: entries[entries.length - 1]?.id, text };
      });
      if (page.count === 0) break;
      if (!(await write(res, (sent > 0 ? ',' : '') + page.text))) return;
      sent += page.count;
      before = page.last;
      if (page.count < limit) break;
    }
    res.end(']}');
  } catch (err) {
    // The status line is gone: cut the answer short, so the client sees an incomplete file, never a valid one.
    ctx.logger.error({ err: (err as Error).message, accountId: account.id }, 'dashboard: export failed');
    res.destroy();
  }
}
