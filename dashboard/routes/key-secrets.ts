/**
 * Rotation with an overlap and end dates of the signed-in account's keys (D39): the key page's forms and the JSON
 * API (`POST /api/keys/:id/rotate` with `overlapSeconds`, `PUT /api/keys/:id/expiry` with `expiresAt`).
 */
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../context';
import { customer } from '../actor';
import { DashboardError, invalidField } from '../errors';
import { handle, requireApiSession, requirePageSession, signed } from '../middleware';
import * as keys from '../services/keys';
import * as v from '../validate';
import * as kv from '../views/keys';
import { pageContext } from './pages';

type Fn = (req: Request, res: Response) => Promise<void>;
const MAX_OVERLAP_S = 7 * 86_400;

const body = (req: Request): Record<string, unknown> => {
  const b: unknown = req.body;
  return b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
};

/** Seconds of overlap from a form or JSON value: a whole number from 0 to 7 days. */
function overlapSeconds(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_OVERLAP_S) {
    throw invalidField('overlapSeconds', 'Choose an overlap from none to 7 days');
  }
  return n;
}

/** The end of a last day `YYYY-MM-DD` (UTC), or an ISO date-time; refused naming the field otherwise. */
function endOf(value: unknown, field: string): number {
  const s = typeof value === 'string' ? value.trim() : '';
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(s) ? Date.parse(`${s}T00:00:00Z`) + 86_400_000 : Date.parse(s);
  if (s === '' || Number.isNaN(ms)) throw invalidField(field, 'Enter a date, e.g. 2027-01-31');
  return ms;
}

/** Register the routes. */
export function keySecretRoutes(router: Router, ctx: AppContext): void {
  const api = (method: 'post' | 'put', path: string, fn: Fn) =>
    router[method](`/api${path}`, requireApiSession, handle(fn));
  const page = (path: string, fn: Fn) => router.post(path, requirePageSession, handle(fn));
  const accountId = (res: Response) => signed(res).account.id;
  const me = (req: Request, res: Response) => customer(ctx, req, res, accountId(res));

  api('post', '/keys/:id/rotate', async (req, res) => {
    const seconds = overlapSeconds(body(req)['overlapSeconds'] ?? 0);
    const id = v.id(req.params['id']);
    const rotated = await keys.rotateKey(ctx, accountId(res), id, seconds * 1000, me(req, res));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...rotated.key, key: rotated.secret, googleKey: rotated.googleKey });
  });

  api('put', '/keys/:id/expiry', async (req, res) => {
    const raw = body(req)['expiresAt'];
    if (raw === undefined) throw invalidField('expiresAt', 'Give a date-time, or null for none');
    const at = raw === null ? null : endOf(raw, 'expiresAt');
    res.json(await keys.setKeyExpiry(ctx, accountId(res), v.id(req.params['id']), at, me(req, res)));
  });

  /** Rotate from the key page: the new secret on the once-only page; refused → the key page with the error. */
  page('/keys/:id/rotate', async (req, res) => {
    const id = v.id(req.params['id']);
    try {
      const seconds = overlapSeconds(body(req)['overlap']);
      const rotated = await keys.rotateKey(ctx, accountId(res), id, seconds * 1000, me(req, res));
      const shown = kv.keyCreatedPage(pageContext(ctx, res), rotated.key, rotated.secret, rotated.googleKey);
      res.status(200).type('html').send(shown);
    } catch (err) {
      await refused(res, id, err, 'rotate');
    }
  });

  /** The end date from the key page: saved → back to the key; refused → the error by the field. */
  page('/keys/:id/expiry', async (req, res) => {
    const id = v.id(req.params['id']);
    const b = body(req);
    try {
      const at = b['never'] === '1' ? null : endOf(b['expires'], 'expires');
      await keys.setKeyExpiry(ctx, accountId(res), id, at, me(req, res));
      res.redirect(303, `/keys/${id}#expiry`);
    } catch (err) {
      await refused(res, id, err, 'expiry');
    }
  });

  /** A refused form: the key page with the error by its part; anything else is rethrown. */
  async function refused(res: Response, id: string, err: unknown, part: 'rotate' | 'expiry'): Promise<void> {
    if (!(err instanceof DashboardError) || err.code === 'not_found') throw err;
    const detail = await keys.keyDetail(ctx, accountId(res), id);
    const view = kv.keyDetailPage(pageContext(ctx, res), detail, {}, {}, { [part]: err.message });
    res.status(err.status).type('html').send(view);
  }
}
