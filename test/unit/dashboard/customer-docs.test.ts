/** The deployment's docs and the small helpers of the customer pages: pure functions, tables. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadGuides, localise, withKey } from '../../../dashboard/docs/guides';
import { problemCodes, problemText } from '../../../dashboard/docs/problems';
import { customerReference } from '../../../dashboard/docs/reference';
import { DashboardError } from '../../../dashboard/errors';
import { daysToEmpty } from '../../../dashboard/services/overview';
import { parseRange, rangeDays } from '../../../dashboard/services/usage-range';
import { repoRoot } from '../../../gateway/core/paths';
import { authChallenge } from '../../../gateway/http/headers';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import type { Loose } from '../adapters/fixtures';

const ROOT = repoRoot();
const NOW = Date.parse('2026-11-22T12:00:00Z');
const DEPLOY = {
  apiUrl: 'https://api.atlas.example',
  hosts: [
    { label: 'google.atlas', adapter: 'google', url: 'https://google.atlas.example' },
    { label: 'osm.atlas', adapter: 'nominatim', url: 'https://osm.atlas.example:8443' },
  ],
};
const INTERNAL = /x-rule-sets|api\.example\.com|\bD\d{1,2}\b|\bissues? \d+|[Rr]ule set/;

describe('the API reference of a deployment', () => {
  const source = parseYaml(readFileSync(join(ROOT, 'openapi', 'customer.yaml'), 'utf8')) as unknown;

  test.each([RULE_SET_A, RULE_SET_B])(
    'rule set $name: its address, its positions and headers only, no internal markers',
    (rules) => {
      const doc = customerReference(source, rules, DEPLOY, 'https://dash.example/problems/') as Loose;
      const text = JSON.stringify(doc);
      expect(text).not.toMatch(INTERNAL);
      expect(doc['servers']).toEqual([{ url: DEPLOY.apiUrl }]);
      expect(text).toContain(`${DEPLOY.apiUrl}/v1/reverse?lat=48.8584`);
      const positions = Object.values(doc['components'].securitySchemes).map(
        (s: Loose) => s['x-credential-position'],
      );
      expect(positions.sort()).toEqual([...rules.credentialPositions].sort());
      const headers = Object.keys(doc['components'].headers);
      expect(headers.includes('X-Quota-Limit')).toBe(rules.name === 'B');
      expect(headers).toContain('Retry-After');
      expect(doc['paths']['/v1/reverse'].get.responses['402'] !== undefined).toBe(rules.name === 'A');
      expect(doc['info'].description).toContain('https://dash.example/problems/CODE');
    },
  );

  test('leaves the source document as it was', () => {
    const before = JSON.stringify(source);
    customerReference(source, RULE_SET_B, DEPLOY, 'x');
    expect(JSON.stringify(source)).toBe(before);
  });
});

describe('migration guides', () => {
  test('samples use the deployment hosts; hosts it lacks are left; internal references go', () => {
    const text = localise(
      'See https://google.geo.example.com/x and osm.geo.example.com and https://mapbox.geo.example.com (issue 11). (D24 table) D28: it',
      DEPLOY,
    );
    expect(text).toBe(
      'See https://google.atlas.example/x and osm.atlas.example:8443 and https://mapbox.geo.example.com. it',
    );
  });

  test('only the providers with a host, rendered with raw HTML escaped; the key prefix is escaped', () => {
    const guides = loadGuides(ROOT, DEPLOY);
    expect([...guides.keys()]).toEqual(['google', 'nominatim']);
    const google = guides.get('google');
    expect(google?.body).toContain('https://google.atlas.example/maps/api/geocode/json');
    expect(google?.body).not.toMatch(/\bissue \d+|\bD\d{1,2}\b/);
    expect(withKey('<code>gk_YOUR_KEY</code>', 'gk_<b>')).toBe('<code>gk_&lt;b&gt;…</code>');
    expect(withKey('gk_YOUR_KEY', null)).toBe('gk_YOUR_KEY');
  });
});

describe('problem pages', () => {
  test('B answers no 402 and no key_revoked; every code has a what and a todo without internal references', () => {
    expect(problemCodes(RULE_SET_B)).not.toContain('no_credits');
    expect(problemCodes(RULE_SET_B)).not.toContain('key_revoked');
    expect(problemCodes(RULE_SET_A)).toContain('no_credits');
    for (const rules of [RULE_SET_A, RULE_SET_B])
      for (const code of problemCodes(rules)) {
        const t = problemText(rules, code);
        expect(`${t.what} ${t.todo}`).not.toMatch(INTERNAL);
        expect(t.what.length).toBeGreaterThan(10);
      }
  });
});

describe('usage range', () => {
  test.each([
    [{}, '30', 30],
    [{ range: '7' }, '7', 7],
    [{ range: '90' }, '90', 90],
    [{ range: 'custom', from: '2026-11-01', to: '2026-11-03' }, 'custom', 3],
  ])('%j → %s, %d days ending at most today', (q, kind, n) => {
    const r = parseRange(NOW, q);
    expect(r.kind).toBe(kind);
    expect(rangeDays(r)).toHaveLength(n);
    expect(r.to <= '2026-11-22').toBe(true);
  });

  test.each([
    [{ range: '8' }, 'range'],
    [{ range: 'custom', from: '2026-02-30', to: '2026-03-01' }, 'from'],
    [{ range: 'custom', from: '2026-03-01', to: 'x' }, 'to'],
    [{ range: 'custom', from: '2026-11-01', to: '2026-11-23' }, 'to'],
    [{ range: 'custom', from: '2026-11-05', to: '2026-11-01' }, 'from'],
    [{ range: 'custom', from: '2024-01-01', to: '2026-11-01' }, 'from'],
  ])('%j is refused naming %s', (q, field) => {
    try {
      parseRange(NOW, q);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(DashboardError);
      expect((err as DashboardError).field).toBe(field);
      expect((err as DashboardError).status).toBe(400);
    }
  });
});

test('days to empty: whole days down, none when nothing is spent', () => {
  expect(daysToEmpty(1000, 0)).toBeNull();
  expect(daysToEmpty(1000, 3)).toBe(333);
  expect(daysToEmpty(2, 3)).toBe(0);
});

test('WWW-Authenticate names each accepted way, and the host own query parameters', () => {
  expect(authChallenge(['x-api-key', 'query-key'], ['access_token'])).toBe(
    'ApiKey realm="geogate", header="X-API-Key", query="key access_token"',
  );
  expect(authChallenge(['bearer'], [])).toBe('Bearer realm="geogate"');
  expect(authChallenge([], [])).toBe('');
});
