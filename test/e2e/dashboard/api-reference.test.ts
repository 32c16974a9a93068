/**
 * Issue 14 item 3: the customers' API reference page (Redoc from node_modules, no CDN) loads in Debian's Chromium
 * without console errors, shows both operations and the curl, JavaScript and Python samples, and is linked from
 * the dashboard's navigation.
 */
import type { Browser } from 'playwright-core';
import { hasChromium, launchChromium, screenshot, watchErrors } from '../../helpers/browser';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { DEFAULT_BRAND } from '../../../dashboard/brand';
import { html } from '../../../dashboard/views/html';
import { page } from '../../../dashboard/views/layout';
import { axeViolations } from '../../helpers/axe';
import { useStack } from '../harness';

jest.setTimeout(120_000);

const available = hasChromium() || process.env['CI'] === 'true';
if (!hasChromium()) console.warn('API reference browser test skipped: /usr/bin/chromium is not installed');
const maybe = available ? describe : describe.skip;

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

maybe('API reference page', () => {
  const stack = useStack('A');

  test('renders openapi/customer.yaml with code samples, loading nothing from another origin', async () => {
    const context = await browser.newContext({ baseURL: stack.dashboardUrl });
    const tab = await context.newPage();
    const { errors } = watchErrors(tab);
    const foreign: string[] = [];
    tab.on('request', (r) => {
      if (!r.url().startsWith(stack.dashboardUrl) && !/^(data|blob):/.test(r.url())) foreign.push(r.url());
    });
    const res = await tab.goto('/api-reference');
    expect(res?.status()).toBe(200);
    await tab.getByText('/v1/reverse').first().waitFor({ timeout: 30_000 });
    await tab.getByText('/v1/ipv4').first().waitFor();
    for (const lang of ['curl', 'JavaScript', 'Python'])
      expect(await tab.getByRole('tab', { name: lang }).count()).toBeGreaterThan(0);
    await screenshot(tab, 'dashboard', 'api-reference');
    expect(await tab.textContent('body > header')).toContain('geogate');
    expect(await axeViolations(tab)).toEqual([]);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  test('the navigation links to it', () => {
    const text = page(
      { brand: DEFAULT_BRAND, rules: RULE_SET_A, csrf: 'c', email: 'a@example.com', suspended: false },
      '/',
      'T',
      html`x`,
    );
    expect(text).toContain('<a href="/api-reference" >API reference</a>');
  });
});
