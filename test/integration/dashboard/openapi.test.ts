/** dashboard/openapi.yaml matches the app: every documented operation exists, and every /api route is documented. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { signedUp, type Harness, useDashboards } from './fixture';

const spec = parse(fs.readFileSync(path.join(__dirname, '../../../dashboard/openapi.yaml'), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
};
const operations = Object.entries(spec.paths).flatMap(([p, ops]) =>
  Object.keys(ops).map((m) => [m, p] as [string, string]),
);

let h: Harness | null = null;
const dash = useDashboards();

test('is OpenAPI 3.1 and documents the routes the app has', () => {
  expect(spec.openapi).toBe('3.1.0');
  const documented = operations.map(([m, p]) => `${m} ${p}`).sort();
  expect(documented).toEqual(
    [
      'get /api/session',
      'get /api/keys',
      'post /api/keys',
      'get /api/keys/{id}',
      'patch /api/keys/{id}',
      'post /api/keys/{id}/revoke',
      'post /api/keys/{id}/rotate',
      'put /api/keys/{id}/expiry',
      'get /api/keys/{id}/restrictions',
      'put /api/keys/{id}/restrictions',
      'post /api/restrictions/test',
      'get /api/whitelist',
      'post /api/whitelist',
      'delete /api/whitelist/{id}',
      'get /api/credit',
      'post /api/credit/top-ups',
      'post /api/packages',
      'get /api/usage',
      'post /webhooks/stripe',
      'post /webhooks/btcpay',
    ].sort(),
  );
});

test('an undocumented path answers "No such page" (so the check below can fail)', async () => {
  h = await dash('B');
  const c = await signedUp(h, 'spec@example.com');
  expect((await c.api('get', '/api/nothing-here')).body.detail).toBe('No such page');
});

test.each(operations.filter(([, p]) => p.startsWith('/api/')))(
  '%s %s exists in the app (rule set B, signed in)',
  async (method, p) => {
    h = await dash('B');
    const c = await signedUp(h, 'spec@example.com');
    const r = await c.api(
      method as 'get' | 'post' | 'put' | 'patch' | 'delete',
      p.replace('{id}', 'key_missing'),
      {},
    );
    // Only "no such page" would mean the route is missing; a 404 for the unknown id is a problem with its own detail.
    expect(r.body.detail).not.toBe('No such page');
    expect(r.status).toBeLessThan(500);
  },
);
