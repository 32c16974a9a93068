/**
 * The customer dashboard (spec 4.4, issue 6): sign-up and sign-in, keys, IP slots, whitelist (B), credit, packages
 * (A) and usage, as server-rendered pages and an account-scoped JSON API, on its own listener.
 */
import { keySecretRoutes } from './routes/key-secrets';
import { restrictionRoutes } from './routes/restrictions';
import { securityRoutes } from './routes/security';
import { stepUp } from './second-step';
import path from 'node:path';
import express, { type ErrorRequestHandler } from 'express';
import { requestIdMiddleware, requestIdOfResponse } from '../gateway/net/request-id-middleware';
import { createContext, type AppContext } from './context';
import type { DashboardDeps } from './deps';
import { invoicePolicy } from './invoice-config';
import { brandOf } from './brand';
import type { DashboardConfig } from './config';
import type { RuleSet } from '../gateway/policy/ruleset';
import { DashboardError, isStoreUnavailable, storeUnavailable } from './errors';
import { dashboardIds } from './ids';
import { csrf, loadSession, securityHeaders, verifiedForChanges, wantsJson } from './middleware';
import { btcpayWebhook } from './payments/btcpay-webhook';
import { paymentFormAction } from './payments/csp';
import { stripeWebhook } from './payments/webhook';
import type { AutoTopUps } from './payments/auto-topup';
import { accountRoutes } from './routes/account';
import { apiRoutes } from './routes/api';
import { apiReferenceRoutes } from './routes/api-reference';
import { authRoutes } from './routes/auth';
import { billingRoutes } from './routes/billing';
import { autoTopUpRoutes } from './routes/auto-topup';
import { notificationRoutes } from './routes/notifications';
import { lifecycleRoutes } from './routes/lifecycle';
import { pageRoutes } from './routes/pages';
import { errorPage } from './views/error';
import { faviconUrl } from './brand';
import { brandRoutes, docRoutes } from './routes/docs';
import { repoRoot } from '../gateway/core/paths';
import { loadOpenApiJson, sendOpenApiJson } from '../gateway/core/openapi-doc';

export type { DashboardDeps } from './deps';
export { dashboardConfigSchema, type DashboardConfig } from './config';

/** problem+json for the API, an HTML page otherwise; never a stack trace. */
function errorHandler(ctx: AppContext): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let e: DashboardError;
    if (err instanceof DashboardError) e = err;
    else if ((err as { type?: string }).type === 'entity.too.large')
      e = new DashboardError('payload_too_large', 'The request is too large');
    else if (err instanceof URIError)
      // A parameter the router could not decode (dashboardIds refuses these first; this is the backstop).
      e = new DashboardError('invalid_parameter', 'That is not a well-formed id', 'path');
    else if ((err as { type?: string }).type === 'entity.parse.failed')
      e = new DashboardError('invalid_parameter', 'The body is not valid JSON', 'body');
    else if (isStoreUnavailable(err))
      e = storeUnavailable(ctx.logger, err, req.path, requestIdOfResponse(res));
    else {
      ctx.logger.error(
        { err: (err as Error).message, path: req.path, requestId: requestIdOfResponse(res) },
        'dashboard: internal error',
      );
      e = new DashboardError('internal', 'Something went wrong on our side; try again');
    }
    if (e.retryAfter !== undefined) res.setHeader('Retry-After', String(e.retryAfter));
    if (wantsJson(req)) {
      res
        .status(e.status)
        .type('application/problem+json')
        .send(
          JSON.stringify({
            type: `urn:geogate:dashboard:${e.code}`,
            title: e.code.replace(/_/g, ' '),
            status: e.status,
            detail: e.message,
            code: e.code,
            ...(e.field !== undefined ? { field: e.field } : {}),
          }),
        );
      return;
    }
    res
      .status(e.status)
      .type('html')
      .send(errorPage(ctx.brand, e.status, e.message, Boolean(res.locals['signed'])));
  };
}

/** The dashboard's settings a running dashboard takes from a reloaded config (the rest need a restart). */
export const RELOADABLE_DASHBOARD_FIELDS = [
  'productName',
  'footer',
  'unlimitedPlanPrice',
  'unlimitedPlan',
  'invoicing',
] as const;

/** A dashboard app and how to give it a reloaded config's texts (RELOADABLE_DASHBOARD_FIELDS). */
export interface Dashboard {
  app: express.Express;
  /**
   * Take a reloaded config's texts and rule set limits and prices. The rule set object is updated in place, so every
   * part built over it (accounts, notifications, views) sees the new limits at once.
   */
  reconfigure(next: DashboardConfig, rules: RuleSet): void;
  /** Auto top-up's sweep (started and stopped by the composition root with the listeners), or null. */
  autoTopUp: AutoTopUps | null;
}

/** Build the dashboard app. */
export function createDashboardApp(deps: DashboardDeps): express.Express {
  return createDashboard(deps).app;
}

/** Build the dashboard app with its reload hook. */
export function createDashboard(deps: DashboardDeps): Dashboard {
  const ctx = createContext(deps);
  const app = dashboardApp(deps, ctx);
  return {
    app,
    autoTopUp: ctx.autoTopUp,
    reconfigure(next, rules) {
      Object.assign(ctx.rules, rules);
      const texts: Pick<DashboardConfig, (typeof RELOADABLE_DASHBOARD_FIELDS)[number]> = {};
      for (const f of RELOADABLE_DASHBOARD_FIELDS)
        if (next[f] !== undefined) Object.assign(texts, { [f]: next[f] });
      const config: DashboardConfig = { ...ctx.config };
      for (const f of RELOADABLE_DASHBOARD_FIELDS) delete config[f];
      ctx.config = { ...config, ...texts };
      ctx.brand = brandOf(ctx.config);
      ctx.accounts.invoicing = invoicePolicy(ctx.config, ctx.rules);
    },
  };
}

function dashboardApp(deps: DashboardDeps, ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestIdMiddleware(deps.trustProxy));
  app.use(securityHeaders);
  app.use(paymentFormAction(deps.config));
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  const root = repoRoot();
  app.use('/static', express.static(path.join(root, 'dashboard', 'static'), { index: false, maxAge: 0 }));
  app.get('/favicon.ico', (_req, res) => res.redirect(301, faviconUrl(ctx.brand)));
  brandRoutes(app, ctx.brand);
  apiReferenceRoutes(app, root, ctx);
  const doc = loadOpenApiJson('dashboard/openapi.yaml');
  app.get('/openapi.json', (req, res) => sendOpenApiJson(doc, req, res));
  app.get('/api/openapi.yaml', (_req, res) =>
    res.type('application/yaml').sendFile(path.join(root, 'dashboard', 'openapi.yaml')),
  );

  const router = express.Router();
  router.use(dashboardIds());
  const stripe = deps.config.payments?.stripe;
  if (deps.config.payments?.provider === 'stripe' && stripe) {
    stripeWebhook(router, {
      accounts: ctx.accounts,
      logger: deps.logger,
      cfg: stripe,
      autoTopUp: ctx.autoTopUp,
    });
  }
  const btcpay = deps.config.payments?.crypto?.btcpay;
  if (btcpay) {
    btcpayWebhook(router, {
      accounts: ctx.accounts,
      logger: deps.logger,
      cfg: btcpay,
      ...(deps.greenfield ? { client: deps.greenfield } : {}),
    });
  }
  router.use(express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' }));
  router.use(loadSession(ctx), csrf(ctx), verifiedForChanges, stepUp(ctx));
  authRoutes(router, ctx);
  securityRoutes(router, ctx);
  accountRoutes(router, ctx);
  lifecycleRoutes(router, ctx);
  apiRoutes(router, ctx);
  restrictionRoutes(router, ctx);
  docRoutes(router, ctx, root);
  keySecretRoutes(router, ctx);
  pageRoutes(router, ctx);
  billingRoutes(router, ctx);
  autoTopUpRoutes(router, ctx);
  notificationRoutes(router, ctx);
  router.use((_req, _res, next) => next(new DashboardError('not_found', 'No such page')));
  router.use(errorHandler(ctx));
  app.use(router);
  return app;
}
