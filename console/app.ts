/**
 * The operator console (docs/console.md): customers, money and health on server-rendered pages, for operators with
 * the support or admin role, mounted at /console on the admin listener. It acts only through the accounts service
 * and the store ports, and reuses the dashboard's hardening: helmet headers and CSP, the signed session cookie with
 * sign-out marked in the store, the CSRF check (synchroniser token + Origin), sign-in throttling, path id checks.
 */
import path from 'node:path';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { csrf, securityHeaders } from '../dashboard/middleware';
import { pathIdProblem, undecodableSegment } from '../gateway/accounts/ids';
import { repoRoot } from '../gateway/core/paths';
import { requestIdOfResponse } from '../gateway/net/request-id-middleware';
import { isStoreUnavailable } from '../gateway/store/faults';
import { createContext, frameOf, type ConsoleContext } from './context';
import type { ConsoleDeps } from './deps';
import { ConsoleError, invalid, knownRefusal } from './errors';
import { actionRoutes } from './routes/actions';
import { authRoutes } from './routes/auth';
import { pageRoutes } from './routes/pages';
import { loadOperator, signedOperator } from './session';
import { BASE } from './views/layout';
import { errorPage } from './views/pages';

export type { ConsoleDeps } from './deps';

const ID_SEGMENTS = { accounts: 'id', keys: 'keyId' };

/** Path ids checked before any store call: undecodable or malformed → 400, over-long → 404. */
const consoleIds: RequestHandler = (req, _res, next) => {
  const undecodable = undecodableSegment(req.path, ID_SEGMENTS);
  if (undecodable !== null) return next(invalid(undecodable, 'That is not a well-formed id'));
  const bad = pathIdProblem(req.path, ID_SEGMENTS);
  if (bad === null) return next();
  next(
    bad.malformed
      ? invalid(bad.field, 'That is not a well-formed id')
      : new ConsoleError('not_found', 'No such item'),
  );
};

/** CSRF as on the dashboard, against the origin this request was addressed to (the admin listener has no fixed one). */
function consoleCsrf(ctx: ConsoleContext): RequestHandler {
  return (req, res, next) => {
    const origin = `${req.protocol}://${req.get('host') ?? ''}`;
    csrf({ secrets: ctx.secrets, origin })(req, res, next);
  };
}

/** Pages behind sign-in: a visitor's GET goes to the sign-in page, anything else is 401. */
const requireOperator: RequestHandler = (req, res, next) => {
  if (signedOperator(res)) return next();
  if (req.method === 'GET') return void res.redirect(303, `${BASE}/signin`);
  next(new ConsoleError('unauthorized', 'Sign in first'));
};

function errorHandler(ctx: ConsoleContext): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let e = knownRefusal(err);
    if (e === null) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large' || type === 'parameters.too.many')
        e = new ConsoleError('payload_too_large', 'The request is too large');
      else if (type === 'entity.parse.failed' || err instanceof URIError)
        e = invalid('body', 'The request does not parse');
      else if (isStoreUnavailable(err)) {
        ctx.logger.warn({ err: (err as Error).message, path: req.path }, 'console: store unavailable');
        e = new ConsoleError('store_unavailable', 'The store is temporarily unavailable. Try again shortly.');
      } else {
        ctx.logger.error(
          { err: (err as Error).message, path: req.path, requestId: requestIdOfResponse(res) },
          'console: internal error',
        );
        e = new ConsoleError('internal', 'Something went wrong; see the gateway log');
      }
    }
    if (e.retryAfter !== undefined) res.setHeader('Retry-After', String(e.retryAfter));
    const frame = signedOperator(res) ? frameOf(ctx, res) : null;
    res
      .status(e.status)
      .type('html')
      .send(errorPage(frame, e.status, e.message));
  };
}

/** Build the console (mount it at /console). */
export function createConsole(deps: ConsoleDeps): express.Router {
  const ctx = createContext(deps);
  const router = express.Router();
  router.use(securityHeaders);
  router.use(
    '/static',
    express.static(path.join(repoRoot(), 'console', 'static'), { index: false, maxAge: 0 }),
  );
  router.use(consoleIds);
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }));
  router.use(loadOperator(deps, ctx.secrets), consoleCsrf(ctx));
  authRoutes(router, ctx);
  router.use(requireOperator);
  pageRoutes(router, ctx);
  actionRoutes(router, ctx);
  router.use((_req, _res, next) => next(new ConsoleError('not_found', 'No such page')));
  router.use(errorHandler(ctx));
  return router;
}
