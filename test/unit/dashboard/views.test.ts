/** Pure parts of the dashboard: HTML escaping, the usage chart, the config section. */
import { brandOf, DEFAULT_BRAND } from '../../../dashboard/brand';
import { dashboardConfigSchema } from '../../../dashboard/config';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { page, publicPage } from '../../../dashboard/views/layout';
import { html, time } from '../../../dashboard/views/html';
import { usageChart } from '../../../dashboard/views/usage';

describe('html', () => {
  test('escapes every interpolated value, keeps nested html', () => {
    const label = `<script>alert("x")</script>&'`;
    expect(html`<p>${label}</p>`.text).toBe(
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
    expect(html`<div>${html`<b>${'a<b'}</b>`}</div>`.text).toBe('<div><b>a&lt;b</b></div>');
    expect(html`${[1, null, false, 'x']}`.text).toBe('1x');
  });

  test('time() shows UTC text with the ISO instant for local formatting', () => {
    expect(time('2026-02-02T00:00:00.000Z').text).toBe(
      '<time datetime="2026-02-02T00:00:00.000Z" data-local>2026-02-02 00:00:00 UTC</time>',
    );
    expect(time(null).text).toBe('—');
  });
});

describe('usageChart', () => {
  test('draws stacked bars in proportion, one group per day, with a text title', () => {
    const svg = usageChart([
      { day: '2026-01-01', free: 10, billed: 0, refused: 0 },
      { day: '2026-01-02', free: 5, billed: 3, refused: 2 },
    ]).text.replace(/\s+/g, ' ');
    expect(svg.match(/<g data-day/g)).toHaveLength(2);
    expect(svg).toContain('2026-01-02: 5 free, 3 billed, 2 refused');
    expect(svg).toContain('class="free" x="24.0" y="0.0" width="201.6" height="176.0"');
    expect(svg).toContain('class="refused"');
  });

  test('an empty month draws no bars and does not divide by zero', () => {
    const svg = usageChart([{ day: '2026-01-01', free: 0, billed: 0, refused: 0 }]).text;
    expect(svg).not.toContain('class="free"');
    expect(svg).not.toContain('NaN');
  });
});

describe('dashboard config section', () => {
  const base = {
    listen: { port: 0 },
    publicUrl: 'https://dash.example.com',
    sessionSecret: 'x'.repeat(32),
    payments: { provider: 'test' },
  };

  test('accepts a minimal section and fills defaults', () => {
    const cfg = dashboardConfigSchema.parse(base);
    expect(cfg.listen.host).toBe('127.0.0.1');
  });

  test.each([
    [{ ...base, sessionSecret: 'short' }, 'sessionSecret'],
    [{ ...base, publicUrl: 'ftp://x' }, 'publicUrl'],
    [{ ...base, payments: { provider: 'stripe' } }, 'payments.stripe'],
    [{ ...base, extra: 1 }, ''],
  ])('refuses %j naming %s', (input, path) => {
    const r = dashboardConfigSchema.safeParse(input);
    expect(r.success).toBe(false);
    if (path) expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });
});

describe('brand, skip link and footer (issue 15 item 7)', () => {
  const ctx = (brand = DEFAULT_BRAND) => ({
    brand,
    rules: RULE_SET_A,
    csrf: 'c',
    email: 'a@example.com',
    suspended: false,
  });

  test('defaults to "geogate"; the config names both, escaped', () => {
    const base = {
      listen: { port: 0 },
      publicUrl: 'https://dash.example.com',
      sessionSecret: 'x'.repeat(32),
    };
    expect(brandOf(dashboardConfigSchema.parse(base))).toEqual({
      productName: 'geogate',
      footer: 'geogate',
      logo: null,
      favicon: null,
    });
    const cfg = dashboardConfigSchema.parse({
      ...base,
      productName: 'Atlas <Geo>',
      footer: 'Atlas Ltd & Co',
    });
    const text = page(ctx(brandOf(cfg)), '/', 'Overview', html`x`);
    expect(text).toContain('<title>Overview · Atlas &lt;Geo&gt;</title>');
    expect(text).toContain('<a class="brand" href="/"><span>Atlas &lt;Geo&gt;</span></a>');
    expect(text).toContain('<footer class="foot"><p>Atlas Ltd &amp; Co</p></footer>');
    expect(dashboardConfigSchema.safeParse({ ...base, productName: ' ' }).success).toBe(false);
    expect(dashboardConfigSchema.safeParse({ ...base, footer: 'x'.repeat(501) }).success).toBe(false);
  });

  test('the skip link comes first and points at the main element, signed in and out', () => {
    for (const text of [page(ctx(), '/', 'T', html`x`), publicPage(DEFAULT_BRAND, 'T', html`x`)]) {
      const body = text.slice(text.indexOf('<body'));
      expect(body.indexOf('<a class="skip" href="#main">Skip to content</a>')).toBeLessThan(
        body.indexOf('<header'),
      );
      expect(body).toContain('<main id="main"');
    }
  });
});
