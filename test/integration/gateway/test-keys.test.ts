/**
 * Test keys (D40) through a running gateway on every host: each scenario (success, 401, 402, 403 key_ip_limit, 429)
 * is answered in the host's provider shape (the adapter's own rendering of that refusal, or of a record), the backend
 * is never asked, and nothing in the store changes: no counter, slot, balance, usage row, ledger row or admission.
 */
import { ADAPTERS } from '../../../adapters';
import type { RequestForm } from '../../../adapters/common/parse';
import { publicMessage } from '../../../adapters/common/texts';
import type { Adapter, BackendCall } from '../../../adapters/types';
import type { IpRecord } from '../../../backend/records';
import { MESSAGES, type ErrorFacts, type GatewayCode } from '../../../gateway/core/errors';
import { generateKey, googleKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { resetUnix, secondsToReset } from '../../../gateway/http/headers';
import type { EmbeddedStore } from '../../../gateway/store/embedded/store';
import { call } from '../../helpers/gateway-harness';
import { PEPPER } from '../../helpers/gateway-harness';
import { answer, reverseRecord, startInjected, type Injected } from './injected-gateway';

const HOSTS = Object.keys(ADAPTERS);
const HOUR = 3_600_000;

/** The first request form of a host that carries the key in the query (`K`). */
function firstForm(name: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(`../../../adapters/${name}`) as Record<string, unknown>;
  const forms = Object.entries(mod).find(([k]) => k.endsWith('_FORMS'))?.[1] as readonly RequestForm[];
  const withKey = forms.find((f) => /[?&][a-zA-Z_]+=K(&|$)/.test(f.example));
  if (!withKey) throw new Error(`${name}: no form with the key in the query`);
  return withKey.example;
}

/** The adapter's parse state for a form's example (what the pipeline renders with). */
function stateOf(a: Adapter<unknown>, example: string): unknown {
  const q = example.indexOf('?');
  const parsed = a.parse({
    method: 'GET',
    path: decodeURIComponent(example.slice(0, q)),
    query: example.slice(q + 1),
    headers: {},
  });
  return parsed === null ? null : parsed.ok ? parsed.request.state : (parsed.state ?? null);
}

/** Every row of the tables a request could change (the embedded store's file, read directly). */
function snapshot(g: Injected) {
  const db = (g.store as EmbeddedStore).db;
  const all = (table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
  return {
    accounts: all('accounts'),
    keys: all('api_keys'),
    ledger: all('ledger'),
    counters: all('counters_daily'),
    usage: all('usage_daily'),
    slots: all('slots'),
    admissions: all('admissions'),
  };
}

/** The live key's backend: an IP record for IP lookups, a reverse record for the rest. */
function backendAnswer(c: BackendCall) {
  if (c.kind !== 'ipv4') return answer(200, reverseRecord(c));
  const ip: IpRecord = {
    ip: c.ip ?? '192.0.2.1',
    countryCode: 'DE',
    country: 'Germany',
    region: 'Berlin',
    city: 'Berlin',
    lat: 52.52,
    lon: 13.405,
    timezone: 'Europe/Berlin',
    asn: 64500,
    org: 'Example',
    attribution: 'test data',
  };
  return answer(200, ip);
}

/** Wait until the live requests before have settled (their admissions folded and gone), then snapshot. */
async function settledSnapshot(g: Injected) {
  for (let i = 0; i < 100 && snapshot(g).admissions.length > 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  return snapshot(g);
}

/** The refusal each scenario rehearses, with the facts the gateway gives it at `now`. */
function refusalOf(scenario: string, now: number): { code: GatewayCode; detail: string; facts: ErrorFacts } {
  switch (scenario) {
    case '401':
      return { code: 'invalid_key', detail: MESSAGES.invalid_key, facts: {} };
    case '402':
      return { code: 'no_credits', detail: MESSAGES.no_credits, facts: {} };
    case '403': {
      const at = now + HOUR;
      const detail = `All IP slots of this key are held by other addresses; the next slot frees at ${new Date(at).toISOString()}.`;
      return { code: 'key_ip_limit', detail, facts: { nextSlotFreeAt: at } };
    }
    default:
      return {
        code: 'quota_exceeded',
        detail: MESSAGES.quota_exceeded,
        facts: { retryAfter: secondsToReset(now), quotaReset: resetUnix(now) },
      };
  }
}

/** The top-level shape of an answer: its JSON keys, or its first XML element. */
function shape(text: string): string {
  try {
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v)) return 'array';
    return typeof v === 'object' && v !== null ? Object.keys(v).sort().join(',') : typeof v;
  } catch {
    return /<([A-Za-z][\w:-]*)/.exec(text.replace(/^<\?xml[^>]*>/, ''))?.[1] ?? text.slice(0, 20);
  }
}

describe.each(['A', 'B'] as const)('rule set %s', (policy) => {
  let g: Injected;
  let testKey: string;
  let liveKey: string;
  beforeAll(async () => {
    g = await startInjected(policy, {
      hosts: HOSTS.map((n) => ({ name: n === 'native' ? 'localhost' : `${n}.localhost`, adapter: n })),
    });
    const acc = await g.account(1_000_000);
    testKey = generateKey({ test: true });
    await g.store.createKey(
      {
        accountId: acc.id,
        hash: hashKey(testKey, PEPPER),
        prefix: keyPrefix(testKey),
        kind: 'payg',
        test: true,
      },
      g.clock.now(),
    );
    ({ key: liveKey } = await g.key(acc.id));
    g.backend = backendAnswer;
  });
  afterAll(() => g.close());

  /** The host's request with the key in its query, and the scenario (none: the default, success). */
  const request = (name: string, key: string, scenario?: string) => {
    const host = name === 'native' ? 'localhost' : `${name}.localhost`;
    const shown = name === 'google' ? googleKey(key) : key;
    const path =
      name === 'native'
        ? '/v1/reverse?lat=48.8584&lon=2.2945'
        : firstForm(name).replace(/=K(&|$)/, `=${shown}$1`);
    const headers: Record<string, string> = { host };
    if (name === 'native') headers['x-api-key'] = key;
    if (scenario !== undefined) headers['x-test-scenario'] = scenario;
    return call(g.mainUrl, path, { headers });
  };
  const example = (name: string) =>
    name === 'native' ? '/v1/reverse?lat=48.8584&lon=2.2945' : firstForm(name);

  test.each(HOSTS)(
    '%s: every scenario in the provider’s shape; backend not asked; store unchanged',
    async (name) => {
      const adapter = ADAPTERS[name] as Adapter<unknown>;
      const state = stateOf(adapter, example(name));
      const before = await settledSnapshot(g);
      const calls = g.calls.length;
      for (const scenario of ['401', '402', '403', '429']) {
        const r = await request(name, testKey, scenario);
        const { code, detail, facts } = refusalOf(scenario, g.clock.now());
        const text = publicMessage(adapter.clientTexts, code, detail);
        const requestId = String(r.headers['x-request-id']);
        // A host that shows the allowance (OpenCage) shows it used up with a 402 or 429, as on a real refusal.
        const rated = adapter.withRate !== undefined && (scenario === '402' || scenario === '429');
        const rate = {
          limit: g.config.rules.limits.freePerDay,
          remaining: 0,
          reset: resetUnix(g.clock.now()),
        };
        const want = rated
          ? (adapter.withRate as NonNullable<typeof adapter.withRate>)(
              adapter.renderError(state, code, text, facts),
              rate,
            )
          : adapter.renderError(state, code, text, { ...facts, requestId });
        expect({ scenario, status: r.status, body: r.text }).toEqual({
          scenario,
          status: want.status,
          body: want.body,
        });
        expect(r.text).not.toContain(testKey);
      }
      const ok = await request(name, testKey);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('Paris');
      expect(g.calls.length).toBe(calls);
      expect(snapshot(g)).toEqual(before);
      // The same request with a live key reaches the backend and answers in the same shape.
      const live = await request(name, liveKey);
      expect(live.status).toBe(200);
      expect(g.calls.length).toBe(calls + 1);
      expect(shape(ok.text)).toBe(shape(live.text));
      expect(ok.headers['content-type']).toBe(live.headers['content-type']);
    },
  );

  test('the scenario may be named in the query; an unknown one is refused 400 naming `scenario`', async () => {
    const before = await settledSnapshot(g);
    const calls = g.calls.length;
    const q = await call(g.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945&scenario=402', {
      headers: { 'x-api-key': testKey },
    });
    expect(q.status).toBe(402);
    expect(q.json).toMatchObject({ code: 'no_credits' });
    const bad = await call(g.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945&scenario=500', {
      headers: { 'x-api-key': testKey },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_parameter', parameter: 'scenario' });
    expect(g.calls.length).toBe(calls);
    expect(snapshot(g)).toEqual(before);
  });

  test('a revoked test key is refused like any revoked key', async () => {
    const acc = await g.account(0);
    const key = generateKey({ test: true });
    const made = await g.store.createKey(
      { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg', test: true },
      g.clock.now(),
    );
    expect((await call(g.mainUrl, '/v1/reverse?lat=1&lon=2', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
    await g.store.revokeKey(made.id, g.clock.now());
    const r = await call(g.mainUrl, '/v1/reverse?lat=1&lon=2', { headers: { 'x-api-key': key } });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: g.config.rules.revokedCode });
  });
});
