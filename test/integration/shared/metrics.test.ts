/** Issue 14 item 1 on the shared store: key cache hits and misses scraped from /metrics of a real gateway. */
import { call } from '../../helpers/gateway-harness';
import { useBackendProcess } from '../../helpers/gateway-processes';
import { parseExposition, sampleValue } from '../../helpers/exposition';
import { describeShared, startPair, T0, useSharedEnv, type Pair } from './fixture';

jest.setTimeout(60_000);

describeShared('/metrics with the shared store', () => {
  const backend = useBackendProcess();
  const { env } = useSharedEnv('metrics');
  let pair: Pair | null = null;
  afterEach(async () => {
    await pair?.close();
    pair = null;
  });

  it('counts key cache lookups: the first use of a key is a miss, the next ones hits; no key appears', async () => {
    pair = await startPair(env, 'A', backend.url);
    const gw = pair.instances[0];
    const acc = await gw.store.createAccount({ email: `metrics-${Date.now()}@example.org` }, T0);
    await gw.store.credit(acc.id, 10, null, T0);
    const { key } = await pair.key(acc.id);
    for (let i = 0; i < 3; i++) {
      const r = await call(gw.mainUrl, '/v1/ipv4?ip=8.8.8.8', {
        headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.7' },
      });
      expect(r.status).toBe(200);
    }
    const text = await (await fetch(`${gw.adminUrl}/metrics`)).text();
    const samples = parseExposition(text);
    expect(sampleValue(samples, 'geogate_key_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(sampleValue(samples, 'geogate_key_cache_lookups_total', { result: 'hit' })).toBe(2);
    expect(sampleValue(samples, 'geogate_requests_total', { identity: 'key', code: 'ok' })).toBe(3);
    expect(sampleValue(samples, 'geogate_store_failures_total', { op: 'admit' })).toBe(0);
    expect(text).not.toContain(key);
    expect(text).not.toContain(acc.id);
  });
});
