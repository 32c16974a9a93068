/**
 * The forward-auth scenarios (D38) every proxy passes, for rule sets A and B: through the real proxy, with real
 * gateway and backend processes (stand.ts). Each scenario uses its own client addresses, so allowances do not mix.
 */
import { useBackendProcess, useTempDir } from '../harness';
import { useFixture } from '../../helpers/fixture';
import { ask, DOWN_HOST, FAIL_HOST, startStand, type Seen } from './stand';

/** Paris, near the Eiffel Tower. */
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

/** The free counter's remaining units, from the IETF RateLimit field (D21). */
const remaining = (s: Seen): number => Number(/r=(\d+)/.exec(String(s.headers['ratelimit']))?.[1]);

/** Register the scenarios for one proxy. */
export function forwardAuthScenarios(proxyKind: 'nginx' | 'caddy'): void {
  const backend = useBackendProcess();
  let dir = '';
  useTempDir(`gg-fa-${proxyKind}-`, (d) => (dir = d));

  describe.each(['A', 'B'] as const)(`rule set %s behind ${proxyKind}`, (policy) => {
    const stand = useFixture(
      `${proxyKind} stand ${policy}`,
      () => startStand(policy, proxyKind, dir, backend.url),
      (s) => s.stop(),
    );
    // Each rule set has its own gateway; the 127.0.0.x addresses below are per scenario.
    const from = (n: number) => `127.0.${policy === 'A' ? 1 : 2}.${n}`;

    test('anonymous: the backend answers within the allowance, with the quota headers copied; then 429', async () => {
      const seen: Seen[] = [];
      for (let i = 0; i < 3; i++) seen.push(await ask(stand.proxy.url, REVERSE, { from: from(10) }));
      expect(seen.map((s) => s.status)).toEqual([200, 200, 429]);
      // The backend's own answer came through the proxy.
      expect(seen[0]?.json).toEqual(expect.objectContaining({ countryCode: 'FR' }));
      expect(seen[0]?.headers['ratelimit-policy']).toBe('"daily";q=2;w=86400');
      expect(seen.slice(0, 2).map(remaining)).toEqual([1, 0]);
      if (policy === 'B') {
        expect(seen.slice(0, 2).map((s) => s.headers['x-quota-used'])).toEqual(['1', '2']);
        expect(seen[0]?.headers['x-quota-limit']).toBe('2');
      } else {
        expect(seen[0]?.headers['x-quota-limit']).toBeUndefined();
      }
      const refused = seen[2] as Seen;
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json).toEqual(expect.objectContaining({ status: 429, code: 'quota_exceeded' }));
      if (policy === 'A') expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      else expect(refused.headers['x-quota-reset']).toMatch(/^\d+$/);
    });

    test('a spoofed X-Forwarded-For from the (untrusted) client is ignored: it counts as its own address', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await ask(stand.proxy.url, REVERSE, {
          from: from(11),
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        });
        statuses.push(s.status);
      }
      // Three "different" addresses by the spoofed header, one allowance of two by the real one.
      expect(statuses).toEqual([200, 200, 429]);
    });

    test('keyed: free, then billed while the balance lasts, then refused (A 402 no_credits, B 429, D7); the balance never goes below zero', async () => {
      const { accountId, key } = await stand.customer(2);
      const seen: Seen[] = [];
      for (let i = 0; i < 5; i++)
        seen.push(await ask(stand.proxy.url, REVERSE, { from: from(12), headers: { 'x-api-key': key } }));
      expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 200, policy === 'A' ? 402 : 429]);
      expect((seen[4] as Seen).json).toEqual(
        expect.objectContaining({ code: policy === 'A' ? 'no_credits' : 'quota_exceeded' }),
      );
      expect(await stand.balance(accountId)).toBe(policy === 'A' ? '0.0000' : 0);
    });

    test('a refusal changes nothing: a key refused at a third address (key_ip_limit) still has its allowance', async () => {
      const { key } = await stand.customer(0);
      const headers = { 'x-api-key': key };
      const first = await ask(stand.proxy.url, REVERSE, { from: from(13), headers });
      expect(first.status).toBe(200);
      expect(remaining(first)).toBe(1);
      expect((await ask(stand.proxy.url, REVERSE, { from: from(14), headers })).status).toBe(200);
      // A: a pay-per-use key holds two slots; B: the same (D6). The third address is refused.
      const third = await ask(stand.proxy.url, REVERSE, { from: from(15), headers });
      expect(third.status).toBe(403);
      expect(third.json).toEqual(expect.objectContaining({ code: 'key_ip_limit' }));
      const unknown = await ask(stand.proxy.url, REVERSE, {
        from: from(13),
        headers: { 'x-api-key': 'gk_0000000000000000000000000000000000000000000' },
      });
      expect(unknown.status).toBe(401);
      expect(unknown.json).toEqual(expect.objectContaining({ code: 'invalid_key' }));
      // The allowance is two: the two refusals took none of it, so the key's second free request was the last
      // (A: then billed, and the account has no credit).
      const after = await ask(stand.proxy.url, REVERSE, { from: from(13), headers });
      expect(after.status).toBe(policy === 'A' ? 402 : 429);
    });

    test('a malformed original URI is a clear 400, never a 500', async () => {
      // The proxy passes it (a percent-encoded byte that is not UTF-8); the gateway cannot decode the path.
      const s = await ask(stand.proxy.url, '/v1/reverse%C3?lat=1&lon=2', { from: from(16) });
      expect(s.status).toBe(400);
      expect(s.json).toEqual(expect.objectContaining({ code: 'invalid_parameter', parameter: 'path' }));
    });

    test('an unknown host is a clear 404 unknown_host, never a 500', async () => {
      const s = await ask(stand.proxy.url, REVERSE, { from: from(17), host: 'nowhere.test' });
      expect(s.status).toBe(404);
      expect(s.json).toEqual(
        expect.objectContaining({ code: 'unknown_host', parameter: 'header:x-forwarded-host' }),
      );
      expect(String(s.json?.['detail'])).toContain('"nowhere.test"');
    });

    test('a backend failure reported on the release route is not charged (D11 through D38)', async () => {
      const { key } = await stand.customer(0);
      const headers = { 'x-api-key': key };
      const failed = await ask(stand.proxy.url, REVERSE, { from: from(18), headers, host: FAIL_HOST });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(failed.headers['x-geogate-released']).toBe('true');
      expect(String(failed.json?.['detail'])).toContain('not charged');
      // The allowance of two is whole: two answered, then refused (A: billed, and there is no credit).
      const next: number[] = [];
      for (let i = 0; i < 3; i++)
        next.push((await ask(stand.proxy.url, REVERSE, { from: from(18), headers })).status);
      expect(next).toEqual([200, 200, policy === 'A' ? 402 : 429]);
    });

    if (proxyKind === 'nginx')
      test("nginx's own 502 (the backend refuses connections) is reported and not charged", async () => {
        const { key } = await stand.customer(0);
        const headers = { 'x-api-key': key };
        const failed = await ask(stand.proxy.url, REVERSE, { from: from(19), headers, host: DOWN_HOST });
        expect(failed.status).toBe(502);
        expect(failed.headers['x-geogate-released']).toBe('true');
        const next: number[] = [];
        for (let i = 0; i < 3; i++)
          next.push((await ask(stand.proxy.url, REVERSE, { from: from(19), headers })).status);
        expect(next).toEqual([200, 200, policy === 'A' ? 402 : 429]);
      });
  });
}
