/** The Notifications page's routes (D30); registered only when the config has `dashboard.notifications`. */
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, requirePageSession, signed } from '../middleware';
import * as svc from '../services/notifications';
import * as v from '../validate';
import { notificationsPage, type NotificationsForm } from '../views/notifications';
import { pageContext } from './pages';

/** Test events an account may queue per hour. */
export const TEST_EVENT_LIMIT = { count: 10, windowMs: 3_600_000 } as const;

const body = (req: Request, name: string): unknown =>
  (req.body as Record<string, unknown> | undefined)?.[name];

/** Register the page and its forms. */
export function notificationRoutes(router: Router, ctx: AppContext): void {
  if (!ctx.notifications) return;
  const notifications = ctx.notifications;
  const get = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.get(path, requirePageSession, handle(fn));
  const post = (path: string, fn: (req: Request, res: Response) => Promise<void>) =>
    router.post(path, requirePageSession, handle(fn));

  const show = async (res: Response, status: number, form: NotificationsForm = {}, threshold?: string) => {
    const { account } = signed(res);
    const view = await svc.view(ctx, account);
    if (threshold !== undefined) view.threshold = threshold;
    res
      .status(status)
      .type('html')
      .send(notificationsPage(pageContext(ctx, res), view, form));
  };
  /** A customer's refusal shown next to its field; anything else goes to the error handler. */
  const fieldError = (err: unknown): { field: 'threshold' | 'url'; error: DashboardError } => {
    if (err instanceof DashboardError && (err.field === 'threshold' || err.field === 'url')) {
      return { field: err.field, error: err };
    }
    throw err;
  };

  get('/notifications', async (_req, res) => show(res, 200));

  post('/notifications/settings', async (req, res) => {
    const accountId = signed(res).account.id;
    const raw = body(req, 'threshold');
    try {
      const threshold = svc.parseThreshold(ctx, raw);
      const current = await ctx.store.notificationSettings(accountId);
      const email = notifications.sendsEmail ? body(req, 'emailAlerts') === 'on' : current.emailAlerts;
      await ctx.store.setNotificationSettings(accountId, email, threshold);
      await show(res, 200, { message: 'Alerts saved.' });
    } catch (err) {
      const { error } = fieldError(err);
      await show(
        res,
        error.status,
        { errors: { threshold: error.message } },
        typeof raw === 'string' ? raw : '',
      );
    }
  });

  post('/notifications/webhooks', async (req, res) => {
    const accountId = signed(res).account.id;
    const raw = body(req, 'url');
    try {
      const added = await svc.addEndpoint(ctx, accountId, raw);
      await show(res, 201, {
        message: 'Endpoint added.',
        secret: { endpoint: added.url, value: added.secret },
      });
    } catch (err) {
      const { error } = fieldError(err);
      await show(res, error.status, {
        errors: { url: error.message },
        url: typeof raw === 'string' ? raw : '',
      });
    }
  });

  post('/notifications/webhooks/:id/delete', async (req, res) => {
    const removed = await ctx.store.removeWebhookEndpoint(signed(res).account.id, v.id(req.params['id']));
    if (!removed) throw new DashboardError('not_found', 'No such item on your account');
    await show(res, 200, { message: 'Endpoint removed.' });
  });

  post('/notifications/test', async (_req, res) => {
    const accountId = signed(res).account.id;
    // Each click queues one delivery per channel and endpoint, with retries: bounded per account and hour so the
    // button cannot turn the gateway into a request cannon or crowd out other accounts' alerts.
    const now = ctx.clock.now();
    const hit = await ctx.store.hitWindow(`notify-test:${accountId}`, TEST_EVENT_LIMIT.windowMs, now);
    if (hit.count > TEST_EVENT_LIMIT.count) {
      const wait = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
      throw new DashboardError(
        'rate_limited',
        `${TEST_EVENT_LIMIT.count} test events were sent this hour. Try again in ${Math.ceil(wait / 60)} minutes.`,
        undefined,
        wait,
      );
    }
    const [settings, endpoints] = await Promise.all([
      ctx.store.notificationSettings(accountId),
      ctx.store.listWebhookEndpoints(accountId),
    ]);
    if (endpoints.length === 0 && !(settings.emailAlerts && notifications.sendsEmail)) {
      await show(res, 200, {
        message: 'Nothing to send to: turn on e-mail alerts or add a webhook endpoint.',
      });
      return;
    }
    await notifications.sendTest(accountId);
    await show(res, 200, { message: 'Test event queued: it appears in the log below once sent.' });
  });
}
