/**
 * Issue 13 item 10: fast-check over every admin and dashboard route, with a valid admin token and a valid session,
 * on the embedded store and on the shared store (PostgreSQL + Redis): hostile ids (undecodable escapes, NUL,
 * over-long), queries and bodies never get a 5xx. Bounded runs; a fixed seed keeps failures reproducible.
 */
import type { Express } from 'express';
import fc from 'fast-check';
import pino from 'pino';
import request from 'supertest';
import { createAdminApp } from '../../../gateway/admin/app';
import { hashKey, generateKey, keyPrefix } from '../../../gateway/core/keys';
import { createDashboardApp } from '../../../dashboard/app';
import type { Store } from '../../../gateway/store/ports';
import {
  Client,
  harness as dashboardHarness,
  PEPPER,
  signedUp,
  type Harness as DashHarness,
} from '../dashboard/harness';
import { describeShared, sharedEnv, type SharedEnv } from '../shared/harness';

const TOKEN = 'admin-token-for-fuzz-0123456789';
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

/** Percent-encode, or a broken escape when the string holds a lone surrogate (encodeURIComponent throws). */
const enc = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};
const HOSTILE = [
  '%ZZ',
  '%00',
  'acc_%00',
  'key_%00x',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '..',
  '%2E%2E',
  '%2F',
  `acc_${'a'.repeat(200)}`,
  '%F0%9F%92%A9',
  'acc_%0A',
  '%20',
];
const str = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('', '\u0000', 'a\u0000b', '\ud800', '-1', '1e309', '9'.repeat(30)),
);
const idArb = (valid: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...valid), weight: 3 },
    fc.constantFrom(...HOSTILE),
    str.map(enc).filter((s) => s !== ''),
  );
const queryArb = fc.oneof(
  { arbitrary: fc.constant(''), weight: 3 },
  fc
    .dictionary(fc.constantFrom('email', 'from', 'to', 'limit', 'cursor', 'status', 'day', 'month'), str, {
      maxKeys: 3,
    })
    .map(
      (d) =>
        `?${Object.entries(d)
          .map(([k, v]) => `${k}=${enc(v)}`)
          .join('&')}`,
    ),
  fc.constantFrom('?from=%ZZ', '?email=%00', '?limit=%', '?to=2026-13-45'),
);
const FIELDS = [
  'email',
  'name',
  'amount',
  'currency',
  'kind',
  'label',
  'until',
  'address',
  'cidr',
  'plan',
  'months',
  'reference',
  'status',
  'password',
  'token',
  'unlimitedUntil',
  'packages',
  'idempotencyKey',
];
const bodyArb = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(str, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Method = 'get' | 'post' | 'put' | 'delete';
const METHODS: Method[] = ['get', 'post', 'put', 'delete'];
const ADMIN_ROUTES: [Method, string][] = [
  ['get', '/admin/accounts'],
  ['post', '/admin/accounts'],
  ['get', '/admin/accounts/:id'],
  ['post', '/admin/accounts/:id/suspend'],
  ['post', '/admin/accounts/:id/reinstate'],
  ['get', '/admin/accounts/:id/ledger'],
  ['post', '/admin/accounts/:id/credit'],
  ['post', '/admin/accounts/:id/keys'],
  ['get', '/admin/keys/:id'],
  ['post', '/admin/keys/:id/revoke'],
  ['post', '/admin/accounts/:id/packages'],
  ['put', '/admin/accounts/:id/plan'],
  ['get', '/admin/accounts/:id/usage'],
  ['post', '/admin/accounts/:id/whitelist'],
  ['delete', '/admin/accounts/:id/whitelist/:entryId'],
];
/** Every dashboard route but /signout (it would end the session the run needs). */
const DASHBOARD_ROUTES: [Method, string][] = [
  ['get', '/api/session'],
  ['get', '/api/keys'],
  ['post', '/api/keys'],
  ['get', '/api/keys/:id'],
  ['post', '/api/keys/:id/revoke'],
  ['get', '/api/whitelist'],
  ['post', '/api/whitelist'],
  ['delete', '/api/whitelist/:id'],
  ['get', '/api/credit'],
  ['post', '/api/credit/top-ups'],
  ['post', '/api/packages'],
  ['get', '/api/usage'],
  ['get', '/'],
  ['get', '/keys'],
  ['post', '/keys'],
  ['get', '/keys/:id'],
  ['get', '/keys/:id/revoke'],
  ['post', '/keys/:id/revoke'],
  ['get', '/whitelist'],
  ['post', '/whitelist'],
  ['post', '/whitelist/:id/delete'],
  ['get', '/credit'],
  ['post', '/credit/top-up'],
  ['post', '/packages'],
  ['get', '/usage'],
  ['get', '/signup'],
  ['post', '/signup'],
  ['get', '/signin'],
  ['post', '/signin'],
  ['get', '/signin/link'],
  ['post', '/signin/link'],
  // Account lifecycle (issue 15 item 1).
  ['get', '/settings'],
  ['get', '/settings/delete'],
  ['post', '/settings/delete'],
  ['get', '/settings/delete/confirm'],
  ['post', '/settings/delete/confirm'],
  ['get', '/verify/email'],
  ['post', '/verify/email'],
  ['post', '/verify/resend'],
];

/** A request: a route (or any method on it), its ids, a query and a body. */
const requestArb = (routes: [Method, string][], ids: string[]) =>
  fc.record({
    route: fc.constantFrom(...routes),
    anyMethod: fc.option(fc.constantFrom(...METHODS), { freq: 5 }),
    id: idArb(ids),
    entryId: idArb(ids),
    query: queryArb,
    body: bodyArb,
    idem: fc.option(str, { freq: 2 }),
  });
type Req = ReturnType<typeof requestArb> extends fc.Arbitrary<infer R> ? R : never;

/** The raw URL of a fuzzed request (ids inserted as they are: raw escapes stay raw). */
const urlOf = (r: Req): string => r.route[1].replace(':id', r.id).replace(':entryId', r.entryId) + r.query;

/** Send a fuzzed request with the given authentication. */
function send(app: Express, r: Req, auth: Record<string, string>, form: boolean): request.Test {
  const method = r.anyMethod ?? r.route[0];
  let t = request(app)[method](urlOf(r));
  for (const [k, v] of Object.entries(auth)) t = t.set(k, v);
  if (r.idem !== null) t = t.set('Idempotency-Key', enc(r.idem));
  if (r.body === undefined) return t;
  if (form && r.body !== null && typeof r.body === 'object' && !Array.isArray(r.body)) {
    const pairs = Object.entries(r.body).map(
      ([k, v]) => `${k}=${enc(typeof v === 'string' ? v : JSON.stringify(v))}`,
    );
    return t.type('form').send(pairs.join('&'));
  }
  return t.type('json').send(JSON.stringify(r.body));
}

/** Seed data: two accounts, a key on each, a whitelist entry (B), so valid ids exist among the fuzzed ones. */
async function seed(store: Store, now: number, ruleSet: 'A' | 'B'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const acc = await store.createAccount({ email: `fuzz${i}-${Date.now()}@example.com`, name: 'Fuzz' }, now);
    await store.credit(acc.id, 1_000, null, now);
    const key = generateKey();
    const k = await store.createKey(
      {
        accountId: acc.id,
        hash: hashKey(key, PEPPER),
        prefix: keyPrefix(key),
        kind: 'payg',
        packageUntil: null,
      },
      now,
    );
    ids.push(acc.id, k.id);
    if (ruleSet === 'B') ids.push((await store.addWhitelist(acc.id, `192.0.2.${10 + i}/32`, now)).id);
  }
  return ids;
}

/** Run the property: no answer is a 5xx. Returns the statuses seen, per hundred (200, 300, 400). */
async function noServerErrors(
  routes: [Method, string][],
  ids: string[],
  one: (r: Req) => Promise<request.Response>,
): Promise<Record<number, number>> {
  const seen: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(requestArb(routes, ids), async (r) => {
      const res = await one(r);
      const band = Math.floor(res.status / 100) * 100;
      seen[band] = (seen[band] ?? 0) + 1;
      if (res.status >= 500) {
        throw new Error(
          `${res.status} for ${r.anyMethod ?? r.route[0]} ${urlOf(r)}: ${res.text.slice(0, 200)}`,
        );
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  // The run reached the routes' own logic (some 2xx), not only the authentication or the id guard.
  expect(seen[200] ?? 0).toBeGreaterThan(0);
  return seen;
}

/** The fuzz suite over one store, for both rule sets. */
function fuzzSuite(openStore: () => Promise<{ store: Store; close(): Promise<void> }>): void {
  describe.each([['A'], ['B']] as const)('rule set %s', (ruleSet) => {
    let h: DashHarness;
    let store: Store;
    let closeStore: () => Promise<void>;
    let ids: string[];
    beforeAll(async () => {
      h = await dashboardHarness(ruleSet);
      ({ store, close: closeStore } = await openStore());
      ids = await seed(store, h.clock.now(), ruleSet);
    });
    afterAll(async () => {
      await closeStore();
      await h.close();
    });

    test('admin API with a valid token: 0 5xx', async () => {
      const app = createAdminApp({
        store,
        rules: h.rules,
        pepper: PEPPER,
        clock: h.clock,
        token: TOKEN,
        logger: pino({ level: 'silent' }),
      });
      const auth = { Authorization: `Bearer ${TOKEN}` };
      await noServerErrors(ADMIN_ROUTES, ids, (r) => send(app, r, auth, false));
    }, 60_000);

    test('dashboard with a valid session: 0 5xx (pages take forms, /api JSON)', async () => {
      const app = createDashboardApp({ ...h.deps, store });
      const fake = { ...h, app, store } as DashHarness;
      const c: Client = await signedUp(fake, `fuzz-${ruleSet}-${Date.now()}@example.com`);
      const mine = (await c.api('get', '/api/keys')).body as { keys?: { id: string }[] };
      const all = [...ids, ...(mine.keys ?? []).map((k) => k.id)];
      const auth = () => ({
        Cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        Origin: 'http://dash.test',
        'X-CSRF-Token': c.csrf,
      });
      await noServerErrors(DASHBOARD_ROUTES, all, (r) =>
        send(app, r, auth(), !r.route[1].startsWith('/api')),
      );
      // Still signed in: the run exercised the signed-in routes, not only the sign-in redirect.
      expect((await c.api('get', '/api/session')).status).toBe(200);
    }, 60_000);

    test('the red-team ids answer 400 invalid_parameter naming the field, signed out too', async () => {
      const admin = createAdminApp({
        store,
        rules: h.rules,
        pepper: PEPPER,
        clock: h.clock,
        token: TOKEN,
        logger: pino({ level: 'silent' }),
      });
      for (const path of ['/admin/accounts/%ZZ', '/admin/accounts/acc_%00', '/admin/keys/%ZZ/revoke']) {
        const method = path.endsWith('revoke') ? 'post' : 'get';
        const res = await request(admin)[method](path).set('Authorization', `Bearer ${TOKEN}`);
        expect([res.status, res.body.code, res.body.parameter]).toEqual([400, 'invalid_parameter', 'id']);
      }
      const entry = await request(admin)
        .delete(`/admin/accounts/${ids[0]}/whitelist/%00`)
        .set('Authorization', `Bearer ${TOKEN}`);
      expect([entry.status, entry.body.code, entry.body.parameter]).toEqual([
        400,
        'invalid_parameter',
        'entryId',
      ]);
      const dash = createDashboardApp({ ...h.deps, store });
      const res = await request(dash).get('/api/keys/%ZZ');
      expect([res.status, res.body.code, res.body.field]).toEqual([400, 'invalid_parameter', 'id']);
      expect((await request(dash).get('/api/keys/acc_%00')).status).toBe(400);
    });
  });
}

describe('embedded store', () => {
  fuzzSuite(async () => {
    const h = await dashboardHarness('A');
    return { store: h.store, close: () => h.close() };
  });
});

describeShared('shared store (PostgreSQL + Redis)', () => {
  fuzzSuite(async () => {
    const env: SharedEnv = await sharedEnv(undefined, 'edge-fuzz');
    return { store: await env.open(), close: () => env.cleanup() };
  });
});
