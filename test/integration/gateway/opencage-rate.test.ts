/**
 * OpenCage's 402 (allowance used, no credit) carries `rate` with remaining 0 and `X-RateLimit-*`, as OpenCage sends it
 * to keys with a free allowance (issue 16 item 4; providers.md, OpenCage (d)); other refusals carry none.
 */
import { call } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

describe('OpenCage 402 shows the used-up allowance (issue 16 item 4)', () => {
  let g: Injected;
  beforeAll(async () => {
    g = await startInjected('A', {
      limits: { freePerDay: 1 },
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'opencage.localhost', adapter: 'opencage' },
      ],
    });
  });
  afterAll(() => g.close());

  test('allowance used, no credit → 402 with rate.remaining 0 and X-RateLimit-Remaining: 0', async () => {
    const acc = await g.account(0);
    const { key } = await g.key(acc.id);
    const q = (k: string) =>
      call(g.mainUrl, `/geocode/v1/json?q=48.8584,2.2945&key=${k}`, {
        headers: { host: 'opencage.localhost' },
      });
    const first = await q(key);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ rate: { limit: 1, remaining: 0 } });
    const r = await q(key);
    expect(r.status).toBe(402);
    expect(r.json).toMatchObject({ status: { code: 402 }, rate: { limit: 1, remaining: 0 }, results: [] });
    expect(typeof (r.json as { rate: { reset: number } }).rate.reset).toBe('number');
    expect(r.headers['x-ratelimit-limit']).toBe('1');
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(r.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    // Not on other refusals: an unknown key is 401 without a rate.
    const bad = await q('gk_unknown_key_0123456789abcdef0123456789');
    expect(bad.status).toBe(401);
    expect(bad.json).not.toHaveProperty('rate');
    expect(bad.headers['x-ratelimit-remaining']).toBeUndefined();
  });
});
