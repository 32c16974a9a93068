/** What the admin app needs from its host (re-exported by app.ts). */
import type { RequestHandler } from 'express';
import type pino from 'pino';
import type { AccountsService } from '../accounts/service';
import type { Clock } from '../core/clock';
import type { ReloadOutcome } from '../config/reload';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { RuleSet } from '../policy/ruleset';
import type { ApiKey } from '../store/types';
import type { AccountStore, BillingStore, KeyStore } from '../store/ports';

/** Dependencies of the admin app. */
export interface AdminDeps {
  store: AccountStore & KeyStore & BillingStore;
  rules: RuleSet;
  /** Server-side secret of key hashes (D14). */
  pepper: string;
  clock: Clock;
  /** The admin bearer token (D15). Never logged. */
  token: string;
  logger: pino.Logger;
  /** Readiness checks for /readyz (issue 4), e.g. `{ store: true }`. */
  readiness?: () => Promise<Record<string, boolean>>;
  /** The shared account rules; built from store, rules, clock and pepper when not given. */
  accounts?: AccountsService;
  /** The gateway's metrics, served unauthenticated at /metrics (like /healthz; docs/decisions.md). */
  metrics?: Pick<GatewayMetrics, 'scrape'>;
  /** Told of every revocation (notifications, D30). */
  onKeyRevoked?: (key: ApiKey) => void;
  /** Re-read the config file and apply it (POST /admin/reload); absent: the route answers 404. */
  reload?: () => Promise<ReloadOutcome>;
  /** The operator console, mounted at /console (runtime/server.ts composes it). */
  console?: RequestHandler;
}

/** What the route groups get: the deps with the accounts service in place. */
export interface RouteDeps extends AdminDeps {
  accounts: AccountsService;
}
