/**
 * Issue 16 item 4 through the real gateway and backend: account endpoints in the providers' own shapes, never
 * counted (LocationIQ /v1/balance, ipinfo /me, Nominatim /status), and OpenCage's `rate` + X-RateLimit-* for keys
 * with a free allowance, left out for Unlimited ones. Rule set B, two free requests per account per day.
 */
import { call, T0 } from '../../helpers/gateway-harness';
import { PARIS, startDropIns, type DropIns } from './harness';

let env: DropIns;
const RESET = Date.UTC(2026, 10, 23) / 1000; // the next 00:00 UTC after the harness clock's T0
const at = `lat=${PARIS.lat}&lon=${PARIS.lon}`;

beforeAll(async () => {
  env = await startDropIns(['locationiq', 'ipinfo', 'nominatim', 'opencage'], { freePerDay: 2 });
}, 60_000);

afterAll(async () => {
  await env?.close();
});

const get = (adapter: string, path: string, headers: Record<string, string> = {}) =>
  call(env.url(adapter), path, { headers });

describe('LocationIQ /v1/balance', () => {
  it('shows the requests left today, and asking for it is not counted', async () => {
    const key = await env.freshKey();
    const balance = () => get('locationiq', `/v1/balance?key=${key}&format=json`);
    for (let i = 0; i < 3; i++) {
      const r = await balance();
      expect([r.status, r.json]).toEqual([200, { status: 'ok', balance: { day: 2, bonus: 0 } }]);
    }
    expect((await get('locationiq', `/v1/reverse?key=${key}&${at}&format=json`)).status).toBe(200);
    expect((await balance()).json.balance.day).toBe(1);
  });

  it('refuses an unknown key as LocationIQ does, without echoing it', async () => {
    const r = await get('locationiq', `/v1/balance?key=${env.unknownKey}`);
    expect([r.status, r.json]).toEqual([401, { error: 'Invalid key' }]);
  });
});

describe('ipinfo /me', () => {
  it('shows the day, month, limit and remaining of the token, uncounted', async () => {
    const key = await env.freshKey();
    const me = () => get('ipinfo', '/me', { authorization: `Bearer ${key}` });
    const first = await me();
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ requests: { day: 0, month: 0, limit: 2, remaining: 2 }, features: {} });
    expect(first.text).not.toContain(key);
    expect((await get('ipinfo', `/8.8.8.8/json?token=${key}`)).status).toBe(200);
    expect((await me()).json.requests).toEqual({ day: 1, month: 1, limit: 2, remaining: 1 });
    expect((await me()).json.requests.remaining).toBe(1);
  });

  it('refuses an unknown token with 403 Unknown token', async () => {
    const r = await get('ipinfo', '/me', { authorization: `Bearer ${env.unknownKey}` });
    expect([r.status, r.json.error.title]).toEqual([403, 'Unknown token']);
  });
});

describe('Nominatim /status', () => {
  it.each(['/status', '/status.php?format=text', '/status/'])(
    '%s answers OK as text, with no key',
    async (path) => {
      const r = await get('nominatim', path);
      expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'text/plain; charset=utf-8', 'OK']);
    },
  );

  it('answers format=json as {"status":0,"message":"OK"} and refuses other formats with 400', async () => {
    const r = await get('nominatim', '/status.php?format=json');
    expect([r.status, r.json]).toMatchObject([200, { status: 0, message: 'OK' }]);
    expect((await get('nominatim', '/status?format=xml')).status).toBe(400);
  });
});

describe("OpenCage's rate object and X-RateLimit-* headers", () => {
  const reverse = (key: string) => get('opencage', `/geocode/v1/json?q=${PARIS.lat},${PARIS.lon}&key=${key}`);

  it('are sent to keys with a free allowance', async () => {
    const r = await reverse(await env.freshKey());
    expect(r.status).toBe(200);
    expect(r.json.rate).toEqual({ limit: 2, remaining: 1, reset: RESET });
    expect(r.headers['x-ratelimit-limit']).toBe('2');
    expect(r.headers['x-ratelimit-remaining']).toBe('1');
    expect(r.headers['x-ratelimit-reset']).toBe(String(RESET));
    expect(r.json.results[0].components.country_code).toBe('fr');
  });

  it('are left out for Unlimited keys', async () => {
    const account = await env.harness.account({ unlimitedUntil: T0 + 30 * 86_400_000 });
    const { key } = await env.harness.key(account.id);
    const r = await reverse(key);
    expect(r.status).toBe(200);
    expect(r.json.rate).toBeUndefined();
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    expect(r.headers['x-ratelimit-remaining']).toBeUndefined();
  });
});
