/**
 * The composition root's servers: the gateway (main, per-host and admin listeners) and, when the config has a
 * `dashboard:` section, the customer dashboard on its own listener over the same store (issue 6).
 */
import type http from 'node:http';
import { createDashboard, RELOADABLE_DASHBOARD_FIELDS, type Dashboard } from '../dashboard/app';
import { createConsole } from '../console/app';
import type { ApiKey } from '../gateway/store/types';
import type { DashboardConfig } from '../dashboard/config';
import { ReloadRefused, restartOnlyChanges } from '../gateway/config/reload';
import { createMailer, type Mailer } from '../dashboard/mailer';
import type { Notifications } from '../gateway/notify';
import {
  closeServer,
  drainServer,
  createGateway as createGatewayOnly,
  listenOn,
  type GatewayDeps,
  type GatewayUrls as GatewayOnlyUrls,
} from '../gateway/server';
import { limitedServer } from '../gateway/net/server-limits';
import type { AppConfig } from './config';
import { notificationsOf } from './notifications';

/** What the root needs: the gateway's dependencies with the composed config. */
export interface AppDeps extends Omit<GatewayDeps, 'config' | 'notifications'> {
  config: AppConfig;
  /** The dashboard's and the notifications' mailer (tests); built from dashboard.smtp when not given. */
  mailer?: Mailer;
  /** The notifications already built by the entry (runtime/library.ts); built here when not given. */
  notifications?: Notifications | null;
}

/** Every listener's URL. */
export interface GatewayUrls extends GatewayOnlyUrls {
  /** The dashboard's listener URL, or null when the config has no `dashboard:` section. */
  dashboardUrl: string | null;
}

/** The running whole: gateway plus dashboard. */
export interface Gateway {
  listen(): Promise<GatewayUrls>;
  close(): Promise<void>;
  /** Issue 14: /readyz answers 503 from now on; every listener keeps serving. */
  drain(): void;
  /** Stop accepting on every listener and resolve when in-flight requests have finished. */
  closeGracefully(): Promise<void>;
  /** The admin token in use (never logged). */
  readonly adminToken: string;
  /**
   * Serve a reloaded config: the gateway's hosts, backends, limits and prices and the dashboard's texts. Throws
   * ReloadRefused, changing nothing, when a setting that needs a restart differs.
   */
  reload(next: AppConfig): void;
}

/** The dashboard's settings of `next` that differ from `running` and need a restart. */
export function dashboardRestartChanges(
  running: DashboardConfig | null,
  next: DashboardConfig | null,
): string[] {
  if ((running === null) !== (next === null)) return ['dashboard'];
  if (running === null || next === null) return [];
  const fixed = (c: DashboardConfig): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...c };
    for (const f of RELOADABLE_DASHBOARD_FIELDS) delete out[f];
    return out;
  };
  const a = fixed(running);
  const b = fixed(next);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .sort()
    .map((k) => `dashboard.${k}`);
}

/** The dashboard's server, or null when the config has no dashboard section. */
function dashboardServer(
  deps: AppDeps,
  mailer: Mailer | null,
  notifications: Notifications | null,
): { server: http.Server; dashboard: Dashboard } | null {
  const { config } = deps;
  if (!config.dashboard) return null;
  const dashboard = createDashboard({
    ...(mailer ? { mailer } : {}),
    ...(notifications ? { notifications } : {}),
    store: deps.store,
    rules: config.rules,
    pepper: config.keyPepper,
    clock: deps.clock,
    logger: deps.logger,
    config: config.dashboard,
    trustProxy: config.trustProxy,
    trustProxyHeader: config.trustProxyHeader,
    deployment: {
      apiUrl: config.publicApiUrl,
      hosts: config.hosts
        .filter((h) => h.adapter.name !== 'native')
        .map((h) => ({ label: h.label, adapter: h.adapter.name, url: h.publicUrl })),
    },
  });
  return { server: limitedServer(config.serverLimits.dashboard, dashboard.app), dashboard };
}

/** Build the gateway and the dashboard from one config and one store. */
export function createGateway(deps: AppDeps): Gateway {
  const dash = deps.config.dashboard;
  const mailer = deps.mailer ?? (dash ? createMailer(dash, deps.logger) : null);
  const notifications = deps.notifications !== undefined ? deps.notifications : notificationsOf(deps, mailer);
  const { notifications: _built, ...gatewayDeps } = deps;
  const gateway = createGatewayOnly({
    ...gatewayDeps,
    ...(notifications ? { notifications } : {}),
    // The operator console on the admin listener, over the same store (docs/console.md).
    console: (host) =>
      createConsole({
        store: deps.store,
        rules: host.config.rules,
        pepper: host.config.keyPepper,
        clock: deps.clock,
        logger: deps.logger,
        adminToken: host.adminToken,
        readiness: host.readiness,
        trustProxy: host.config.trustProxy,
        trustProxyHeader: host.config.trustProxyHeader,
        ...(notifications ? { onKeyRevoked: (k: ApiKey) => notifications.keyRevoked(k) } : {}),
      }),
  });
  const built = dashboardServer(deps, mailer, notifications);
  const dashboard = built?.server ?? null;
  const listen = deps.config.dashboard?.listen;
  let running = deps.config;
  return {
    adminToken: gateway.adminToken,
    reload(next) {
      const fields = [
        ...restartOnlyChanges(running, next),
        ...dashboardRestartChanges(running.dashboard, next.dashboard),
      ];
      if (fields.length > 0) throw new ReloadRefused(fields);
      gateway.reload(next);
      if (next.dashboard) built?.dashboard.reconfigure(next.dashboard, next.rules);
      running = next;
    },
    async listen() {
      const urls = await gateway.listen();
      const dashboardUrl = dashboard && listen ? await listenOn(dashboard, listen.host, listen.port) : null;
      notifications?.start();
      built?.dashboard.autoTopUp?.start();
      return { ...urls, dashboardUrl };
    },
    async close() {
      await Promise.all([notifications?.stop(), built?.dashboard.autoTopUp?.stop()]);
      await Promise.all([gateway.close(), dashboard ? closeServer(dashboard) : Promise.resolve()]);
    },
    drain: () => {
      gateway.drain();
      void notifications?.stop(); // the other instances deliver what is left
      void built?.dashboard.autoTopUp?.stop();
    },
    async closeGracefully() {
      await Promise.all([notifications?.stop(), built?.dashboard.autoTopUp?.stop()]);
      await Promise.all([gateway.closeGracefully(), dashboard ? drainServer(dashboard) : Promise.resolve()]);
    },
  };
}
