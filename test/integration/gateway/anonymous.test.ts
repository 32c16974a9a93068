/** Acceptance 1: the anonymous allowance per counting unit, per UTC day, across endpoints and hosts (spec 5.3, D3, D4). */
import { DAY_MS, nextUtcMidnight } from '../../../gateway/core/clock';
import { burst, call, tally, T0, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const xff = (ip: string) => ({ 'x-forwarded-for': ip });
const PATHS = ['/v1/reverse?lat=48.8584&lon=2.2945', '/v1/ipv4?ip=8.8.8.8', '/v1/ipv4'];

describe.each(['A', 'B'] as const)('rule set %s', (policy) => {
  let h: Harness;

  test('2,500 requests per UTC day across endpoints and hosts, then 429 quota_exceeded; resets at 00:00 UTC', async () => {
    h = await gw.start({
      policy,
      backendUrl: backend.url,
      config: {
        trustProxy: ['127.0.0.1/32'],
        hosts: [
          { name: 'localhost', adapter: 'native' },
          { name: 'second', port: 0, adapter: 'native' },
        ],
      },
    });
    const hostUrls = [h.mainUrl, h.hostUrls['second'] as string];
    const answers = await burst(2500, 16, (i) =>
      call(hostUrls[i % 2] as string, PATHS[i % 3] as string, { headers: xff('203.0.113.7') }),
    );
    expect(tally(answers)).toEqual({ 200: 2500 });

    const refused = await call(h.mainUrl, PATHS[0] as string, { headers: xff('203.0.113.7') });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json).toMatchObject({ code: 'quota_exceeded', status: 429 });
    const secondsLeft = (nextUtcMidnight(T0) - T0) / 1000;
    if (policy === 'A') expect(refused.headers['retry-after']).toBe(String(secondsLeft));
    else expect(refused.headers['x-quota-reset']).toBe(String(nextUtcMidnight(T0) / 1000));
    expect(refused.json.retry_after).toBe(secondsLeft);

    // Another address is counted on its own.
    expect((await call(h.mainUrl, PATHS[1] as string, { headers: xff('203.0.113.8') })).status).toBe(200);

    // Anonymous callers are never billed: the usage history shows free requests only, and the refusal.
    const rows = await h.store.usage(['network:203.0.113.7/32'], '2026-11-22', '2026-11-22');
    expect(rows).toEqual([
      { day: '2026-11-22', subject: 'network:203.0.113.7/32', free: 2500, billed: 0, refused: 1 },
    ]);

    h.clock.set(nextUtcMidnight(T0) - 1);
    expect((await call(h.mainUrl, PATHS[0] as string, { headers: xff('203.0.113.7') })).status).toBe(429);
    h.clock.set(nextUtcMidnight(T0));
    const next = await call(h.mainUrl, PATHS[0] as string, { headers: xff('203.0.113.7') });
    expect(next.status).toBe(200);
    expect(next.headers['ratelimit']).toBe(`"daily";r=2499;t=${DAY_MS / 1000}`);
  }, 120_000);

  test('X-Forwarded-For is ignored without trustProxy (D3): every spoofed address shares the peer allowance', async () => {
    h = await gw.start({ policy, backendUrl: backend.url, config: { limits: { freePerDay: 3 } } });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await call(h.mainUrl, PATHS[1] as string, { headers: xff(`198.51.100.${i + 1}`) })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('IPv6 counting units (D4)', () => {
  let h: Harness;
  const start = (policy: 'A' | 'B') =>
    gw.start({
      policy,
      backendUrl: backend.url,
      config: { trustProxy: ['127.0.0.1/32'], limits: { freePerDay: 2 } },
    });

  test('B counts IPv6 per /40: two /64s in one /40 share the allowance', async () => {
    h = await start('B');
    const s = [];
    for (const ip of ['2001:db8:aa01:1::1', '2001:db8:aa02:2::2', '2001:db8:aaff:3::3', '2001:db8:bb00::1']) {
      s.push((await call(h.mainUrl, PATHS[1] as string, { headers: xff(ip) })).status);
    }
    expect(s).toEqual([200, 200, 429, 200]);
  });

  test('A counts IPv6 per network /64: addresses in one /64 share it, another /64 is separate', async () => {
    h = await start('A');
    const s = [];
    for (const ip of [
      '2001:db8:aa01:1::1',
      '2001:db8:aa01:1::2',
      '2001:db8:aa01:1::3',
      '2001:db8:aa01:2::1',
    ]) {
      s.push((await call(h.mainUrl, PATHS[1] as string, { headers: xff(ip) })).status);
    }
    expect(s).toEqual([200, 200, 429, 200]);
  });
});
