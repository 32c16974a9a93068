/**
 * Key restrictions (issue 15 item 4, D29): the editor's form post on the key page, and the JSON API behind it and
 * behind the live tester (`POST /api/restrictions/test`, called by dashboard.js as the customer types).
 */
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../context';
import { customer } from '../actor';
import { DashboardError } from '../errors';
import { handle, requireApiSession, requirePageSession, signed } from '../middleware';
import * as keys from '../services/keys';
import { getRestrictions, lines, setRestrictions, testRestrictions } from '../services/restrictions';
import * as v from '../validate';
import * as kv from '../views/keys';
import { pageContext } from './pages';

type Fn = (req: Request, res: Response) => Promise<void>;

const body = (req: Request): Record<string, unknown> => {
  const b: unknown = req.body;
  return b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
};

/** Register the restriction routes (pages and API). */
export function restrictionRoutes(router: Router, ctx: AppContext): void {
  const api = (method: 'get' | 'post' | 'put', path: string, fn: Fn) =>
    router[method](`/api${path}`, requireApiSession, handle(fn));
  const accountId = (res: Response) => signed(res).account.id;
  const me = (req: Request, res: Response) => customer(ctx, req, res, accountId(res));
  const input = (req: Request) => {
    const b = body(req);
    return { referrers: lines(b['referrers'], 'referrers'), cidrs: lines(b['cidrs'], 'cidrs') };
  };

  api('get', '/keys/:id/restrictions', async (req, res) => {
    res.json(await getRestrictions(ctx, accountId(res), v.id(req.params['id'])));
  });

  api('put', '/keys/:id/restrictions', async (req, res) => {
    res.json(await setRestrictions(ctx, accountId(res), v.id(req.params['id']), input(req), me(req, res)));
  });

  api('post', '/restrictions/test', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(testRestrictions(body(req)));
  });

  /** The editor without JavaScript: saved → back to the key with a note; refused → the error by its list. */
  router.post(
    '/keys/:id/restrictions',
    requirePageSession,
    handle(async (req, res) => {
      const id = v.id(req.params['id']);
      const b = body(req);
      try {
        await setRestrictions(ctx, accountId(res), id, input(req), me(req, res));
        res.redirect(303, `/keys/${id}?restricted=1#restrictions`);
      } catch (err) {
        if (!(err instanceof DashboardError) || err.code === 'not_found') throw err;
        const detail = await keys.keyDetail(ctx, accountId(res), id);
        const text = (x: unknown) => (typeof x === 'string' ? x : '');
        const form = {
          referrers: text(b['referrers']),
          cidrs: text(b['cidrs']),
          error: err.message,
          field: err.field,
        };
        res
          .status(err.status)
          .type('html')
          .send(kv.keyDetailPage(pageContext(ctx, res), detail, {}, form));
      }
    }),
  );
}
