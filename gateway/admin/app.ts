/**
 * The admin HTTP API (D15): accounts, keys, credit, packages, plans, whitelist and usage, behind a bearer token,
 * plus unauthenticated /healthz, /readyz and /metrics (Prometheus) and /version (bearer token). Mounted by the gateway on the admin listener (loopback by default).
 */
import express from 'express';
import { AccountsService } from '../accounts/service';
import { loadOpenApiJson, sendOpenApiJson } from '../core/openapi-doc';
import { buildInfo } from '../core/version';
import type { AdminDeps, RouteDeps } from './deps';
import { bearerAuth, errorHandler, jsonBody, requestLog } from './http';
import { requestIdMiddleware } from '../net/request-id-middleware';
import { adminIds } from './ids';
import { AdminProblem, sendProblem } from './problem';
import { accountRoutes } from './routes/accounts';
import { creditRoutes, refundRoutes } from './routes/credit';
import { keyRoutes } from './routes/keys';
import { listRoutes } from './routes/list';
import { packageRoutes } from './routes/packages';
import { accountRefusals } from './routes/refusals';
import { planRoutes } from './routes/plan';
import { reloadRoutes } from './routes/reload';
import { usageRoutes } from './routes/usage';
import { whitelistRoutes } from './routes/whitelist';

export type { AdminDeps } from './deps';

/** Answer a scrape with the exposition text (never cached). */
async function serveMetrics(
  metrics: NonNullable<AdminDeps['metrics']>,
  res: express.Response,
): Promise<void> {
  const { contentType, body } = await metrics.scrape();
  res.set({ 'content-type': contentType, 'cache-control': 'no-store' }).send(body);
}

/** Route groups under /admin; a new group is one entry. */
const ROUTE_GROUPS = [
  listRoutes,
  accountRoutes,
  creditRoutes,
  refundRoutes,
  keyRoutes,
  packageRoutes,
  planRoutes,
  whitelistRoutes,
  usageRoutes,
  reloadRoutes,
];

/** Build the admin app. Throws at start when the token is unusable. */
export function createAdminApp(deps: AdminDeps): express.Express {
  if (deps.token.length < 16) throw new Error('admin token must be at least 16 characters');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestIdMiddleware());

  const doc = loadOpenApiJson('openapi/admin.yaml');
  app.get('/openapi.json', (req, res) => sendOpenApiJson(doc, req, res));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = deps.readiness ? await deps.readiness().catch(() => ({ readiness: false })) : {};
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  // Behind the bearer token like /admin: what runs here is worth hiding from a scanner (docs/decisions.md).
  app.get('/version', bearerAuth(deps.token), (_req, res) => {
    res.set('cache-control', 'no-store').json({ ...buildInfo(), ruleSet: deps.rules.name });
  });
  const metrics = deps.metrics;
  app.get('/metrics', (_req, res, next) => {
    if (!metrics) return sendProblem(res, new AdminProblem('not_found', 'no metrics on this listener'));
    // A worker group that cannot be collected fails the scrape (503) rather than show one worker's counters.
    serveMetrics(metrics, res).catch((err: unknown) => {
      if (res.headersSent) return next(err);
      res
        .status(503)
        .type('text/plain')
        .send(`metrics unavailable: ${(err as Error).message}\n`);
    });
  });

  const routeDeps: RouteDeps = { ...deps, accounts: deps.accounts ?? new AccountsService(deps) };
  const admin = express.Router();
  admin.use(requestLog(deps.logger), bearerAuth(deps.token), adminIds(), ...jsonBody());
  for (const group of ROUTE_GROUPS) group(admin, routeDeps);
  admin.use((_req, res) => {
    sendProblem(res, new AdminProblem('not_found', 'no such admin endpoint; see docs/admin.md'));
  });
  admin.use(accountRefusals(deps.rules), errorHandler(deps.logger));
  app.use('/admin', admin);
  if (deps.console) app.use('/console', deps.console);
  app.use((_req, res) => sendProblem(res, new AdminProblem('not_found', 'no such endpoint')));
  return app;
}
