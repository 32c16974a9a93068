/**
 * What the customer walks share: one Chromium per file, one backend process and one mail capture per file, the
 * dashboard served over a gateway's or its own embedded store, desk (1280 px) and phone (375 px) pages that collect
 * console errors, screenshots checked for horizontal overflow (and, where a walk asks, axe-core's WCAG A/AA rules),
 * and the customer's steps that every walk takes the same way: sign up, a new key, a test top-up.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDashboard, type Dashboard, type DashboardDeps } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import type { Clock } from '../../../gateway/core/clock';
import { RULE_SET_A, RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store';
import type { Store } from '../../../gateway/store/ports';
import { axeViolations } from '../../helpers/axe';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
  type ErrorWatch,
} from '../../helpers/browser';
import { useFixture, type Closable } from '../../helpers/fixture';
import { PEPPER, startGatewayHarness, type Harness } from '../../helpers/gateway-harness';
import { linkIn, startSmtpCapture, type CapturedMail, type SmtpCapture } from '../../helpers/smtp-capture';

/** A rule set's name. */
export type RuleSetName = 'A' | 'B';

/** Debian's Chromium is there (outside CI the walks skip without it; in CI its absence fails them). */
export const available = hasChromium() || process.env['CI'] === 'true';
/** `test` where the walks can run, else `test.skip`. */
export const maybe = available ? test : test.skip;
/** Set A's sign-up password. */
export const PASSWORD = 'a long browser password';

const VIEWPORTS = { desk: { width: 1280, height: 900 }, phone: { width: 375, height: 812 } } as const;

/** The rule set object of `set`. */
export const rulesOf = (set: RuleSetName): RuleSet => (set === 'A' ? RULE_SET_A : RULE_SET_B);

/** Poll `probe` every `stepMs` until it gives a value; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  stepMs = 50,
): Promise<T> {
  for (const t0 = Date.now(); ;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** The first mail to `to` after the first `seen` messages whose text passes `match` (the capture keeps them all). */
export function nextMail(
  smtp: SmtpCapture,
  to: string,
  seen: number,
  match: (m: CapturedMail) => boolean = (m) => /https?:\/\//.test(m.text),
): Promise<CapturedMail> {
  const addressed = (m: CapturedMail) => m.to.some((t) => t.toLowerCase() === to.toLowerCase());
  return until(`a new mail to ${to}`, () => smtp.messages.slice(seen).find((m) => addressed(m) && match(m)));
}

// ---- Per-file fixtures: the browser, the backend process, the mail capture --------------------------------------

/**
 * One Chromium for the whole file (contexts keep the tests apart): launched in the file's beforeAll, closed in its
 * afterAll. Call at the top level of the file.
 */
export function useBrowser(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (available) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser(): Browser {
      if (!browser) throw new Error('Chromium is not running: read it inside a test');
      return browser;
    },
  };
}

/** One backend process for the file's gateways (it keeps no state between requests). Top level of the file. */
export const useBackend = (): BackendProcess =>
  useFixture(
    'backend process',
    () => startBackendProcess(),
    (b) => b.stop(),
  );

/** One SMTP capture for the file (each walk signs up its own address). Top level of the file. */
export const useSmtp = (): SmtpCapture =>
  useFixture(
    'smtp capture',
    () => startSmtpCapture(),
    (s) => s.close(),
  );

// ---- The dashboard over a store -----------------------------------------------------------------------------------

/** A dashboard listening on a loopback port. */
export interface DashboardSite {
  url: string;
  dashboard: Dashboard;
  config: DashboardConfig;
  close(): Promise<void>;
}

/** What the dashboard runs over: a store, its rules, pepper and clock. */
export type DashboardBase = Pick<DashboardDeps, 'store' | 'rules' | 'pepper' | 'clock'>;

/**
 * Serve the dashboard on 127.0.0.1 (an ephemeral port: its URL is the public URL, so the config is built after the
 * listen), mailing through `smtp`, test payments unless `extra` says otherwise.
 */
export async function serveDashboard(
  base: DashboardBase,
  smtp: SmtpCapture,
  extra: Partial<DashboardConfig> = {},
  deps: Partial<DashboardDeps> = {},
): Promise<DashboardSite> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: url,
    sessionSecret: 'browser-test-session-secret-0123456789',
    smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'no-reply@dash.test' },
    payments: { provider: 'test' },
    ...extra,
  };
  const dashboard = createDashboard({ ...base, logger: pino({ level: 'silent' }), config, ...deps });
  server.on('request', dashboard.app);
  return {
    url,
    dashboard,
    config,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A gateway of rule set `set` in front of the file's backend, with its dashboard over the gateway's store. */
export interface GatewayWalk {
  gateway: Harness;
  site: DashboardSite;
  dashboardUrl: string;
  close(): Promise<void>;
}

/**
 * Start a gateway (`gateway`: config members over the harness's) and its dashboard (`dashboard`: config members,
 * `deps`: injected clients); `alongside`: stand-ins started for this walk, closed after it (or when the start fails).
 */
export async function startGatewayWalk(
  set: RuleSetName,
  backend: BackendProcess,
  smtp: SmtpCapture,
  opts: {
    gateway?: Record<string, unknown>;
    dashboard?: (gateway: Harness) => Partial<DashboardConfig>;
    deps?: (gateway: Harness) => Partial<DashboardDeps>;
    alongside?: Closable[];
  } = {},
): Promise<GatewayWalk> {
  const alongside = opts.alongside ?? [];
  const closeAlongside = async () => {
    for (const c of alongside) await c.close();
  };
  let gateway: Harness | undefined;
  try {
    gateway = await startGatewayHarness({
      policy: set,
      backendUrl: backend.url,
      ...(opts.gateway ? { config: opts.gateway } : {}),
    });
    const g = gateway;
    const base = { store: g.store, rules: g.config.rules, pepper: PEPPER, clock: g.clock };
    const site = await serveDashboard(base, smtp, opts.dashboard?.(g), opts.deps?.(g));
    return {
      gateway: g,
      site,
      dashboardUrl: site.url,
      async close() {
        await site.close();
        await g.close();
        await closeAlongside();
      },
    };
  } catch (e) {
    await gateway?.close();
    await closeAlongside();
    throw e;
  }
}

/** A dashboard of rule set `set` over its own embedded store in a temp folder (no gateway). */
export interface StoreWalk<C extends Clock> {
  store: Store;
  clock: C;
  site: DashboardSite;
  url: string;
  close(): Promise<void>;
}

/** Start an embedded store on `clock` and the dashboard of `set` over it (`extra`: config members). */
export async function startStoreWalk<C extends Clock>(
  set: RuleSetName,
  smtp: SmtpCapture,
  clock: C,
  extra: Partial<DashboardConfig> = {},
): Promise<StoreWalk<C>> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-walk-'));
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  const site = await serveDashboard({ store, rules: rulesOf(set), pepper: PEPPER, clock }, smtp, extra);
  return {
    store,
    clock,
    site,
    url: site.url,
    async close() {
      await site.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- Pages, screenshots, checks --------------------------------------------------------------------------------

/** A page in its own context at one of the two widths, with its console errors watched. */
export interface WalkPage {
  ctx: BrowserContext;
  page: Page;
  watch: ErrorWatch;
}

/** Open a page at 1280 px (`desk`) or 375 px (`phone`) on `baseURL`; with `from`, signed in as `from` is. */
export async function openPage(
  browser: Browser,
  width: keyof typeof VIEWPORTS,
  baseURL: string,
  from?: BrowserContext,
): Promise<WalkPage> {
  const ctx = await browser.newContext({ viewport: VIEWPORTS[width], baseURL });
  if (from) await ctx.addCookies(await from.cookies());
  const page = await ctx.newPage();
  return { ctx, page, watch: watchErrors(page) };
}

/** How a walk takes its screenshots and what it found wrong on the pages shot. */
export interface Camera {
  /** No horizontal overflow, (with axe) the page's WCAG A/AA violations noted, then test-artifacts/<folder>/<name>.png. */
  shot(page: Page, name: string): Promise<void>;
  /** The accessibility violations noted since the last call (empty without axe). */
  takeViolations(): string[];
}

/** Screenshots into test-artifacts/`folder`/ (copied to docs/screenshots/`folder`-*.png). */
export function camera(folder: string, opts: { axe?: boolean } = {}): Camera {
  const violations: string[] = [];
  return {
    async shot(page, name) {
      expect({ name, overflow: await horizontalOverflow(page) }).toEqual({ name, overflow: 0 });
      if (opts.axe) violations.push(...(await axeViolations(page)));
      await screenshot(page, folder, name);
    },
    takeViolations: () => violations.splice(0),
  };
}

// ---- The customer's common steps ---------------------------------------------------------------------------------

/** Sign up (A: name and password, then the e-mailed verification; B: the e-mailed link); signed in afterwards. */
export async function signUp(page: Page, smtp: SmtpCapture, set: RuleSetName, email: string): Promise<void> {
  await page.goto('/signup');
  await page.fill('#f-email', email);
  const seen = smtp.messages.length;
  if (set === 'A') {
    await page.fill('#f-name', 'Ada Lovelace');
    await page.fill('#f-password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Welcome!');
    await page.goto(linkIn(await nextMail(smtp, email, seen)));
    await page.click('form[action="/verify/email"] button[type=submit]');
    await page.waitForSelector('text=E-mail address confirmed');
  } else {
    await page.click('button[type=submit]');
    await followMailedLink(page, smtp, email, seen);
    await page.waitForSelector('h1:has-text("Overview")');
  }
}

/** B's sign-in by mail: once the page says a link was sent, open the link mailed after `seen` and confirm it. */
export async function followMailedLink(
  page: Page,
  smtp: SmtpCapture,
  email: string,
  seen: number,
): Promise<void> {
  await page.waitForSelector('text=Check your mailbox');
  await page.goto(linkIn(await nextMail(smtp, email, seen)));
  await page.click('button[type=submit]');
}

/** A new key made on the keys page (no step-up asked); its secret, shown once. */
export async function newKey(page: Page, label = 'server'): Promise<string> {
  await page.goto('/keys');
  await page.fill('#f-label', label);
  await page.click('form[action="/keys"] button[type=submit]');
  await page.waitForSelector('#new-key');
  return page.inputValue('#new-key');
}

/** A test top-up of `amount` on the credit page; its receipt number ('' when the page names none). */
export async function topUp(page: Page, amount: string): Promise<string> {
  await page.goto('/credit');
  await page.fill('#f-amount', amount);
  await page.click('form[action="/credit/top-up"] button');
  const done = (await (await page.waitForSelector('text=Top-up complete.')).textContent()) ?? '';
  return /Receipt (\d{4}-\d{6})/.exec(done)?.[1] ?? '';
}
