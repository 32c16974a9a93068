/**
 * The Notifications page in the browser (issue 15 item 2 acceptance; Playwright + Debian Chromium) for both rule
 * sets, against the real backend process and the whole gateway (runtime composition: gateway, dashboard,
 * notifications) on an embedded store: set the threshold (a field error first), add a webhook (its secret shown
 * once), send a test event and see it in the log, drive a key past 80 % and 100 % of its allowance and see both
 * alerts arrive by e-mail (a real SMTP server) and by webhook (a real receiver verifying with standardwebhooks).
 * 0 axe A/AA violations, no console errors; screenshots at 1280 and 375 px.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { systemClock } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { compileConfig, validateConfig } from '../../../runtime/config';
import { createGateway, type Gateway, type GatewayUrls } from '../../../runtime/server';
import { axeViolations } from '../../helpers/axe';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { linkIn, startSmtpCapture, verifyByMailedLink, type SmtpCapture } from '../../helpers/smtp-capture';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver';
import { reverseWithKey, useTempDir } from '../harness';

jest.setTimeout(120_000);

const available = hasChromium() || process.env['CI'] === 'true';
const maybe = available ? describe : describe.skip;
const PASSWORD = 'a long browser password';

/** A free loopback port (closed again at once) for the dashboard, whose public URL must be known beforehand. */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Running {
  gateway: Gateway;
  urls: GatewayUrls & { dashboardUrl: string };
  smtp: SmtpCapture;
  hook: WebhookReceiver;
  close(): Promise<void>;
}

/** Gateway + dashboard + notifications of rule set `policy`, a free allowance of 10, tiny timers. */
async function start(policy: 'A' | 'B', dir: string, backend: BackendProcess): Promise<Running> {
  const smtp = await startSmtpCapture();
  const hook = await startWebhookReceiver();
  const port = await freePort();
  const doc = {
    policy,
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 } },
    backend: { url: backend.url, timeoutMs: 5000 },
    store: { kind: 'embedded', path: path.join(dir, `${policy}.sqlite`) },
    keyPepper: 'browser-notify-pepper-0123456789',
    hosts: [{ name: 'localhost', adapter: 'native' }],
    limits: { freePerDay: 10 },
    dashboard: {
      listen: { host: '127.0.0.1', port },
      publicUrl: `http://127.0.0.1:${port}`,
      sessionSecret: 'browser-notify-session-secret-0123456789',
      smtp: { host: smtp.host, port: smtp.port, from: 'alerts@dash.test' },
      payments: { provider: 'test' },
      notifications: {
        webhooks: { allowPrivateTargets: true },
        retry: { firstDelayMs: 50 },
        worker: { intervalMs: 50 },
        sweepIntervalMs: 200,
      },
    },
  };
  const config = compileConfig(validateConfig(doc, 'browser-notify.yaml', {}), 'browser-notify.yaml');
  const store = await createStore(config.store, { clock: systemClock });
  const gateway = createGateway({ config, store, clock: systemClock, logger: pino({ level: 'silent' }) });
  const urls = await gateway.listen();
  return {
    gateway,
    urls: { ...urls, dashboardUrl: urls.dashboardUrl ?? '' },
    smtp,
    hook,
    async close() {
      await gateway.close();
      await store.close();
      await smtp.close();
      await hook.close();
    },
  };
}

/** Poll until `probe` is true (fails after 15 s). */
async function until(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const t0 = Date.now();
  while (!(await probe())) {
    if (Date.now() - t0 > 15_000) throw new Error(`not within 15 s: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

maybe('the Notifications page in the browser', () => {
  const tmp = useTempDir('geogate-notify-e2e-');
  let backend: BackendProcess;
  beforeAll(async () => {
    backend = await startBackendProcess();
  });
  afterAll(async () => {
    await backend?.stop();
  });

  for (const set of ['A', 'B'] as const) {
    test(`${set}: threshold, webhook with its secret once, test event, alerts at 80 % and 100 % by e-mail and webhook`, async () => {
      const run = await start(set, tmp.path, backend);
      const a11y: string[] = [];
      const shot = async (page: Page, name: string) => {
        a11y.push(...(await axeViolations(page)));
        await screenshot(page, 'dashboard', name);
      };
      const email = `nora-${set.toLowerCase()}@example.com`;
      try {
        const context = await browser.newContext({
          viewport: { width: 1280, height: 900 },
          baseURL: run.urls.dashboardUrl,
        });
        const page = await context.newPage();
        const watch = watchErrors(page);
        // Sign up (A: name and password; B: the e-mailed link).
        await page.goto('/signup');
        await page.fill('#f-email', email);
        if (set === 'A') {
          await page.fill('#f-name', 'Nora');
          await page.fill('#f-password', PASSWORD);
          await page.click('button[type=submit]');
          await page.waitForSelector('h1:has-text("Overview")');
          await verifyByMailedLink(page, run.smtp, email);
          await page.goto('/');
        } else {
          await page.click('button[type=submit]');
          await page.goto(linkIn(await run.smtp.waitFor(email)));
          await page.click('button[type=submit]');
        }
        await page.waitForSelector('h1:has-text("Overview")');

        await page.click('nav a[href="/notifications"]');
        await page.waitForSelector('h1:has-text("Notifications")');
        // A threshold that is not money: refused next to the field.
        await page.fill('#f-threshold', 'ten euros');
        watch.expectStatus('/notifications/settings', 400);
        await page.click('form[action="/notifications/settings"] button');
        await page.waitForSelector('#f-threshold-error');
        await page.fill('#f-threshold', set === 'A' ? '5' : '500');
        await page.click('form[action="/notifications/settings"] button');
        await page.waitForSelector('text=Alerts saved.');
        expect(await page.inputValue('#f-threshold')).toBe(set === 'A' ? '5.00' : '500');

        // A webhook: its secret is shown once.
        await page.fill('#f-url', run.hook.url);
        await page.click('form[action="/notifications/webhooks"] button');
        await page.waitForSelector('#new-secret');
        const secret = await page.inputValue('#new-secret');
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
        run.hook.secret = secret;
        await shot(page, `${set}-notifications-secret`);
        await page.goto('/notifications');
        expect(await page.content()).not.toContain(secret.slice(6));

        // "Send test event": delivered by webhook and e-mail, shown in the log.
        await page.click('button:has-text("Send test event")');
        await page.waitForSelector('text=Test event queued');
        await until('test event delivered', () =>
          run.hook.delivered().some((r) => r.payload?.type === 'notification.test'),
        );
        await until('test event logged twice', async () => {
          await page.goto('/notifications');
          return (await page.locator('table.log tbody tr:has-text("Test")').count()) === 2;
        });

        // A key driven past 80 % and 100 % of its free allowance (10 a day here).
        await page.goto('/keys');
        await page.fill('#f-label', 'server');
        await page.click('form[action="/keys"] button[type=submit]');
        await page.waitForSelector('#new-key');
        const key = await page.inputValue('#new-key');
        for (let i = 0; i < 11; i++) {
          const r = await reverseWithKey(run.urls.mainUrl, key);
          expect(r.status).toBe(i < 10 ? 200 : set === 'A' ? 402 : 429);
        }
        await until('both alerts by webhook', () =>
          ['allowance.80', 'allowance.100'].every((t) =>
            run.hook.delivered().some((r) => r.payload?.type === t),
          ),
        );
        await until('both alerts by e-mail', async () => {
          const subjects = await Promise.all(
            run.smtp.messages
              .filter((m) => m.to.includes(email))
              .map(async (m) => (await simpleParser(m.raw)).subject),
          );
          return (
            subjects.includes('Free allowance 80 % used') && subjects.includes('Free allowance 100 % used')
          );
        });
        await until('alerts in the log', async () => {
          await page.goto('/notifications');
          return (await page.locator('table.log tbody tr:has-text("Allowance 100 %")').count()) === 2;
        });
        expect(run.hook.delivered().filter((r) => r.payload?.type === 'allowance.100')).toHaveLength(1);
        await shot(page, `${set}-notifications`);

        // A phone: nothing overflows.
        const phone = await browser.newContext({
          viewport: { width: 375, height: 800 },
          baseURL: run.urls.dashboardUrl,
          storageState: await context.storageState(),
        });
        const small = await phone.newPage();
        const smallWatch = watchErrors(small);
        await small.goto('/notifications');
        expect(await horizontalOverflow(small)).toBe(0);
        await shot(small, `${set}-phone-notifications`);
        await phone.close();
        await context.close();
        expect([...watch.errors, ...smallWatch.errors]).toEqual([]);
        expect(a11y).toEqual([]);
      } finally {
        await run.close();
      }
    });
  }
});
