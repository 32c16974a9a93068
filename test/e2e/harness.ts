/**
 * THE e2e harness (canonical for every folder under test/e2e; test/e2e/adapters/harness.ts and
 * test/e2e/dashboard/stack.ts re-export it). It starts what an e2e file needs and registers its own cleanup:
 * - `useDropIns`: the real backend process and an in-process gateway (embedded store on a temp file, rule set B, a
 *   free allowance of ONE request per account per day so "exhausted" is one request away) with one listener per
 *   drop-in host on its own ephemeral port; `useFaultWatch` fails a test that leaves an uncaught exception or
 *   unhandled rejection behind, and `settlesWithin` one whose client never settles.
 * - `useStack`: backend, gateway, the dashboard on its own listener over the same store, and a local SMTP server.
 * - `useBackendProcess`, `startGatewayProc`: the compiled backend and gateway as real processes.
 * - `useAdminListener`: the admin API over a temp embedded store, on a loopback port (for the CLI).
 * - `useTempDir`, `runNode`: a temp folder for the file, and a Node script run to completion with its output.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import pino from 'pino';
import { createDashboardApp } from '../../dashboard/app';
import type { DashboardConfig } from '../../dashboard/config';
import { createAdminApp } from '../../gateway/admin/app';
import { ManualClock } from '../../gateway/core/clock';
import { generateKey } from '../../gateway/core/keys';
import type { RuleSet } from '../../gateway/policy/ruleset';
import { createStore } from '../../gateway/store/index';
import type { Store } from '../../gateway/store/ports';
import { startBackendProcess, type BackendProcess } from '../helpers/backend-process';
import { useFixture, useTempDir } from '../helpers/fixture';
import { PEPPER, startGatewayHarness, type Harness } from '../helpers/gateway-harness';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp-capture';

export { call } from '../helpers/gateway-harness';
export {
  startBackendProc,
  startGatewayProc,
  useBackendProcess,
  type RunningProcess,
} from '../helpers/gateway-processes';
export { useTempDir };

/** Paris, near the Eiffel Tower (the backend's nearest locality there is in Paris). */
export const PARIS = { lat: 48.8584, lon: 2.2945 };

/** A running set of drop-in hosts. */
export interface DropIns {
  harness: Harness;
  backend: BackendProcess;
  /** Base URL (http://127.0.0.1:port) of the listener serving `adapter`. */
  url(adapter: string): string;
  /** A fresh key on a fresh account: one free request today, no credit (B: then 429, D7; A: then no_credits). */
  freshKey(): Promise<string>;
  /** A well-formed key that the store does not know (401 invalid_key). */
  unknownKey: string;
  close(): Promise<void>;
}

/**
 * Options: the free allowance per day (default 1), proxies whose X-Forwarded-For is trusted (D3), the rule set
 * (default B) and whether the drop-in hosts serve callers without a key (default true).
 */
export interface DropInOptions {
  freePerDay?: number;
  trustProxy?: string[];
  policy?: 'A' | 'B';
  anonymous?: boolean;
}

/** Starts the backend and a gateway serving the named drop-in adapters, each on its own port. */
export async function startDropIns(adapters: readonly string[], opts: DropInOptions = {}): Promise<DropIns> {
  const backend = await startBackendProcess();
  let harness: Harness;
  try {
    harness = await startGatewayHarness({
      policy: opts.policy ?? 'B',
      backendUrl: backend.url,
      config: {
        hosts: [
          { name: 'localhost', adapter: 'native' },
          ...adapters.map((a) => ({
            name: `${a}.test`,
            port: 0,
            adapter: a,
            ...(opts.anonymous === undefined ? {} : { anonymous: opts.anonymous }),
          })),
        ],
        limits: { freePerDay: opts.freePerDay ?? 1 },
        trustProxy: opts.trustProxy ?? [],
      },
    });
  } catch (err) {
    await backend.stop();
    throw err;
  }
  return {
    harness,
    backend,
    url(adapter) {
      const u = harness.hostUrls[`${adapter}.test`];
      if (!u) throw new Error(`no listener for adapter ${adapter}`);
      return u;
    },
    async freshKey() {
      const account = await harness.account();
      return (await harness.key(account.id)).key;
    },
    unknownKey: generateKey(),
    async close() {
      await harness.close();
      await backend.stop();
    },
  };
}

/** Settles `promise` within `ms` or fails with a "hung" error naming `what` (a client must never hang). */
export function settlesWithin<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the client did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What a promise ended with: its value or its rejection reason. */
export async function outcome<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A process-level fault seen while a watch was installed. */
export interface ProcessFault {
  event: 'uncaughtException' | 'unhandledRejection';
  reason: unknown;
}

/**
 * The Node process itself. Inside a Jest test `process` is a sandbox copy whose listeners never hear the real
 * `uncaughtException` / `unhandledRejection` events (checked: a listener on it recorded neither), so the watch
 * attaches to the process object of the outer context, which `vm.runInThisContext` evaluates in.
 */
function realProcess(): NodeJS.Process {
  return runInThisContext('process') as NodeJS.Process;
}

/**
 * Records uncaught exceptions and unhandled rejections of the real process while installed; `fired` must stay
 * empty. `stop()` removes both listeners.
 */
export function watchProcessFaults(): { fired: ProcessFault[]; stop(): void } {
  const proc = realProcess();
  const fired: ProcessFault[] = [];
  const onException = (reason: unknown): void => {
    fired.push({ event: 'uncaughtException', reason });
  };
  const onRejection = (reason: unknown): void => {
    fired.push({ event: 'unhandledRejection', reason });
  };
  proc.on('uncaughtException', onException);
  proc.on('unhandledRejection', onRejection);
  return {
    fired,
    stop: () => {
      proc.off('uncaughtException', onException);
      proc.off('unhandledRejection', onRejection);
    },
  };
}

/** The drop-in hosts for the enclosing describe block (or file): started in beforeAll, closed in afterAll. */
export function useDropIns(adapters: readonly string[], opts: DropInOptions = {}): DropIns {
  return useFixture(
    'drop-in hosts',
    () => startDropIns(adapters, opts),
    (env) => env.close(),
  );
}

/**
 * Watches the real process for uncaught exceptions and unhandled rejections from now on; after each test the list
 * must be empty (emptied, so one fault fails only its own test); the watch stops after the file.
 */
export function useFaultWatch(): { fired: ProcessFault[] } {
  const faults = watchProcessFaults();
  afterAll(() => faults.stop());
  afterEach(() => {
    expect(faults.fired.splice(0)).toEqual([]); // emptied, so one fault fails only its own test
  });
  return faults;
}

/** The whole stack for browser tests. */
export interface Stack {
  gateway: Harness;
  backend: BackendProcess;
  smtp: SmtpCapture;
  dashboardUrl: string;
  close(): Promise<void>;
}

/** Start everything for rule set A or B. */
export async function startStack(policy: 'A' | 'B', extra: Partial<DashboardConfig> = {}): Promise<Stack> {
  const backend = await startBackendProcess();
  const gateway = await startGatewayHarness({ policy, backendUrl: backend.url });
  const smtp = await startSmtpCapture();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dashboardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: dashboardUrl,
    sessionSecret: 'browser-test-session-secret-0123456789',
    smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'no-reply@dash.test' },
    payments: { provider: 'test' },
    // Rule set B's stack shows a configured product name and footer; A's keeps the defaults ("geogate").
    ...(policy === 'B'
      ? { productName: 'Atlas Geocoding', footer: 'Atlas Geocoding Ltd · 1 Example Street, Dublin' }
      : {}),
    ...extra,
  };
  const app = createDashboardApp({
    store: gateway.store,
    rules: gateway.config.rules,
    pepper: PEPPER,
    clock: gateway.clock,
    logger: pino({ level: 'silent' }),
    config,
  });
  server.on('request', app);
  return {
    gateway,
    backend,
    smtp,
    dashboardUrl,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await smtp.close();
      await gateway.close();
      await backend.stop();
    },
  };
}

/** The whole stack for the enclosing describe block: started in beforeAll, closed in afterAll. */
export function useStack(policy: 'A' | 'B', extra?: () => Partial<DashboardConfig>): Stack {
  return useFixture(
    `stack ${policy}`,
    () => startStack(policy, extra?.()),
    (s) => s.close(),
  );
}

/** GET /v1/reverse on the gateway with a key in X-API-Key; resolves with status and parsed body. */
export async function reverseWithKey(
  gatewayUrl: string,
  key: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gatewayUrl}/v1/reverse?lat=40.7580&lon=-73.9855`, {
    headers: { 'X-API-Key': key },
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}

/** The admin API on a loopback port over a temp embedded store. */
export interface AdminListener {
  url: string;
  store: Store;
  close(): Promise<void>;
}

/** Options of `startAdminListener`. */
export interface AdminListenerOptions {
  token: string;
  pepper: string;
  /** The store clock's start (ms since epoch). */
  start: number;
}

/** Starts the admin app for `rules` on an ephemeral loopback port. */
export async function startAdminListener(rules: RuleSet, opts: AdminListenerOptions): Promise<AdminListener> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-cli-'));
  const clock = new ManualClock(opts.start);
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  const app = createAdminApp({
    store,
    rules,
    pepper: opts.pepper,
    clock,
    token: opts.token,
    logger: pino({ level: 'silent' }),
  });
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The admin listener for the enclosing describe block: started in beforeAll, closed in afterAll. */
export function useAdminListener(rules: RuleSet, opts: AdminListenerOptions): AdminListener {
  return useFixture(
    'admin listener',
    () => startAdminListener(rules, opts),
    (l) => l.close(),
  );
}

/** How a process run ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node file ...args` with exactly `env` (no inherited variables) to its end; `stdin` is written, or ignored. */
export function runNode(
  file: string,
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      env,
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}
