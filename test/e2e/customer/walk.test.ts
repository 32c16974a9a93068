/**
 * The paying customer's walk in Chromium (Debian's, playwright-core) for rule sets A and B, at 1280 and 375 px,
 * against the real gateway and backend: the deployment's API reference and guides, the first request on the new-key
 * page, a refusal with its way out (the problem page, the overview's state), last used, the usage range, the phone
 * menu, the prices at 375 px, the logo and favicon. No console errors, no horizontal overflow. Screenshots go to
 * test-artifacts/customer/ (copied to docs/screenshots/customer-*.png).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackendProcess } from '../../helpers/backend-process';
import { useFixture } from '../../helpers/fixture';
import type { SmtpCapture } from '../../helpers/smtp-capture';
import { reverseWithKey } from '../harness';
import {
  camera,
  maybe,
  newKey,
  openPage,
  signUp,
  startGatewayWalk,
  topUp,
  until,
  useBackend,
  useBrowser,
  useSmtp,
  type RuleSetName,
  type GatewayWalk,
} from './walk-kit';

jest.setTimeout(180_000);

const API = 'https://api.atlas.example';
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><circle cx="14" cy="14" r="12" fill="#1a5fb4"/></svg>';

/** Gateway (main, google and mapbox hosts with public URLs) + dashboard, freePerDay 1; B with a logo and favicon. */
async function startWalk(set: RuleSetName, backend: BackendProcess, smtp: SmtpCapture): Promise<GatewayWalk> {
  const w = await startGatewayWalk(set, backend, smtp, {
    gateway: {
      publicApiUrl: API,
      limits: { freePerDay: 1 },
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'google.test', port: 0, adapter: 'google', publicUrl: 'https://google.atlas.example' },
        { name: 'mapbox.test', port: 0, adapter: 'mapbox' },
      ],
    },
    dashboard: (gateway) => {
      if (set === 'A') return {};
      const logo = join(gateway.dir, 'logo.svg');
      writeFileSync(logo, LOGO);
      return { productName: 'Atlas Geocoding', logo, favicon: logo };
    },
    deps: ({ config: c }) => ({
      deployment: {
        apiUrl: c.publicApiUrl,
        hosts: c.hosts
          .filter((h) => h.adapter.name !== 'native')
          .map((h) => ({ label: h.label, adapter: h.adapter.name, url: h.publicUrl })),
      },
    }),
  });
  w.gateway.config.customerLinks = {
    problems: `${w.dashboardUrl}/problems/`,
    topUp: `${w.dashboardUrl}/credit`,
  };
  return w;
}

const chromium = useBrowser();
const backend = useBackend();
const smtp = useSmtp();
const { shot } = camera('customer');

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  const w = useFixture(
    `walk ${set}`,
    () => startWalk(set, backend, smtp),
    (s) => s.close(),
  );

  maybe('docs for this deployment, a way out of a refusal, the small things; 1280 and 375 px', async () => {
    const desk = await openPage(chromium.browser, 'desk', w.dashboardUrl);
    const { page, watch } = desk;
    const email = `walk-${set.toLowerCase()}@example.com`;
    await signUp(page, smtp, set, email);

    // Item 1: the new-key page's first request, with the key and the deployment's address.
    const key = await newKey(page);
    for (const id of ['#first-curl', '#first-js', '#first-py']) {
      const code = (await page.textContent(id)) ?? '';
      expect(code).toContain(key);
      expect(code).toContain(`${API}/v1/reverse?`);
    }
    await shot(page, `${set}-new-key-first-request`);

    // Item 2: one free request, then the refusal with the top-up link and the problem page as its type.
    expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
    const refused = await reverseWithKey(w.gateway.mainUrl, key);
    expect(refused.status).toBe(set === 'A' ? 402 : 429);
    expect(refused.body['links']).toEqual({ top_up: `${w.dashboardUrl}/credit` });
    const type = String(refused.body['type']);
    expect(type.startsWith(`${w.dashboardUrl}/problems/`)).toBe(true);
    await page.goto(type);
    expect(await page.textContent('main')).toContain('What to do');
    expect(await page.getAttribute('main a.button', 'href')).toBe('/credit');
    await shot(page, `${set}-problem-page`);

    // The refusal's time reaches the store within a second (the gateway's recent-refusals buffer): the banner names it.
    const account = (await w.gateway.store.findAccountByEmail(email))!;
    await until('the refusal in the store', async () => {
      const rows = await w.gateway.store.recentRefusals(account.id, 0, 10);
      return rows.length > 0 ? rows : undefined;
    });
    await page.goto('/');
    const banner = ((await page.textContent('[data-refusing]')) ?? '').replace(/\s+/g, ' ');
    expect(banner).toContain('Requests are being refused (1 today): the free requests are used');
    expect(await page.textContent('[data-refused-since]')).toMatch(/^\d\d:\d\d UTC$/);
    expect(banner).toContain('top up to end it');
    expect(await page.textContent('[data-free]')).toBe('1 used / 0 left');
    expect(await page.textContent('[data-burn]')).toBe('no paid requests in the last 7 days');
    await shot(page, `${set}-overview-refusing`);
    // A top-up ends the state; one paid request gives a days-to-empty.
    await topUp(page, set === 'A' ? '1' : '70');
    expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
    await page.goto('/');
    expect(await page.locator('[data-refusing]').count()).toBe(0);
    expect(await page.textContent('[data-burn]')).toMatch(/^≈ [\d,]+ days at the last 7 days' rate$/);
    await shot(page, `${set}-overview-burn`);

    // Item 8: last used (the slot's last request and its address), and the keys page's advice.
    await page.goto('/keys');
    expect(await page.textContent('table.keys tbody')).toContain('127.0.0.1');
    expect(await page.textContent('details.help')).toContain('restrict it first');
    const prefix = ((await page.textContent('table.keys tbody code')) ?? '').replace('…', '');
    expect(key.startsWith(prefix) && prefix.length >= 6).toBe(true);
    await shot(page, `${set}-keys-last-used`);

    // Item 1: the guides with the deployment's hosts and the customer's key prefix; no internal references.
    await page.goto('/guides');
    expect(await page.textContent('main')).toContain('https://google.atlas.example');
    await page.click('a[href="/guides/google"]');
    const guide = (await page.textContent('article.guide')) ?? '';
    expect(guide).toContain('https://google.atlas.example/maps/api/geocode/json');
    expect(guide).toContain(`${prefix}…`);
    expect(guide).not.toMatch(/\bissue \d+|\bD\d{1,2}\b|geo\.example\.com/);
    await shot(page, `${set}-guide-google`);
    await page.goto('/guides/mapbox');
    expect(await page.textContent('article.guide')).toContain(`https://mapbox.test/geocoding/v5/`);

    // Item 1: the reference of this deployment only.
    const ref = await (await page.request.get('/api-reference/customer.json')).text();
    expect(JSON.parse(ref).servers).toEqual([{ url: API }]);
    expect(ref).not.toMatch(/x-rule-sets|api\.example\.com|\bD\d{1,2}\b|issue \d+|[Rr]ule set/);
    expect(ref.includes('"402"')).toBe(set === 'A');
    await page.goto('/api-reference');
    await page.waitForSelector('text=Reverse and forward geocoding', { timeout: 30_000 });
    await shot(page, `${set}-api-reference`);

    // Item 8: the usage range, the Show button on the fields' line.
    await page.goto('/usage?range=7');
    expect(await page.locator('figure.chart g[data-day]').count()).toBe(7);
    await page.selectOption('#f-range', 'custom');
    await page.fill('#f-from', '2026-01-01');
    await page.fill('#f-to', '2026-01-10');
    await page.click('form.usage-filter button');
    await page.waitForSelector('h2:has-text("2026-01-01 to 2026-01-10")');
    expect(await page.locator('figure.chart g[data-day]').count()).toBe(10);
    const bottoms = (await page.evaluate(
      `['#f-range', 'form.usage-filter button'].map((s) => document.querySelector(s).getBoundingClientRect().bottom)`,
    )) as number[];
    expect(Math.abs((bottoms[0] ?? 0) - (bottoms[1] ?? 99))).toBeLessThanOrEqual(2);
    await shot(page, `${set}-usage-range`);
    watch.expectStatus('/usage', 400);
    await page.goto('/usage?range=custom&from=2026-02-30&to=2026-03-01');
    expect(await page.textContent('main')).toContain('Enter the first day as YYYY-MM-DD');

    if (set === 'B') {
      expect(await page.getAttribute('link[rel=icon]', 'href')).toBe('/brand/favicon');
      await page.goto('/');
      expect(await page.locator('.brand img.logo').count()).toBe(1);
      const logo = await page.request.get('/brand/logo');
      expect(logo.headers()['content-type']).toContain('image/svg+xml');
    }

    // 375 px: the navigation is one line with a menu; the prices stay readable; no page overflows.
    const phone = await openPage(chromium.browser, 'phone', w.dashboardUrl, desk.ctx);
    const p = phone.page;
    await p.goto('/');
    const header = await p.locator('header.top').boundingBox();
    expect(header?.height ?? 999).toBeLessThan(64);
    expect(await p.isVisible('#main-nav')).toBe(false);
    await shot(p, `${set}-phone-overview`);
    await p.click('.menu-toggle');
    expect(await p.isVisible('#main-nav a[href="/guides"]')).toBe(true);
    await shot(p, `${set}-phone-menu`);
    await p.goto('/credit');
    const dd = await p.locator('[data-price="request"]').boundingBox();
    expect(dd?.width ?? 0).toBeGreaterThan(250);
    await shot(p, `${set}-phone-prices`);
    for (const path of [
      '/keys',
      '/usage',
      '/guides',
      '/guides/google',
      '/problems',
      '/problems/invalid_key',
    ]) {
      await p.goto(path);
      await shot(p, `${set}-phone-${path.slice(1).replace(/\//g, '-')}`);
    }
    await phone.ctx.close();
    await desk.ctx.close();
    expect([...watch.errors, ...phone.watch.errors]).toEqual([]);
  });
});
