/** Acceptance 12 (restart): keys, balances, counters and slots survive a gateway restart on the same store file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

test.each(['A', 'B'] as const)('rule set %s: state survives a restart', async (policy) => {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-restart-'));
  const config = { trustProxy: ['127.0.0.1/32'], limits: { freePerDay: 3 } };
  let h: Harness = await gw.start({ policy, backendUrl: backend.url, dir, config });
  const from = (ip: string, key?: string) =>
    call(h.mainUrl, '/v1/ipv4?ip=8.8.8.8', {
      headers: { 'x-forwarded-for': ip, ...(key ? { 'x-api-key': key } : {}) },
    });
  try {
    const acc = await h.account({ balance: 10 });
    const { key } = await h.key(acc.id);
    for (let i = 0; i < 4; i++) expect((await from('203.0.113.1', key)).status).toBe(200); // 3 free + 1 billed
    expect((await from('203.0.113.2', key)).status).toBe(200); // billed, second slot
    await from('198.51.100.1');
    await from('198.51.100.1');
    const now = h.clock.now();
    await h.close({ keepDir: true });

    h = await gw.start({ policy, backendUrl: backend.url, dir, config });
    h.clock.set(now + 1000);
    expect((await h.store.getAccount(acc.id))?.balance).toBe(8);
    expect((await from('203.0.113.3', key)).json.code).toBe('key_ip_limit'); // slots kept
    const again = await from('203.0.113.1', key); // the key still works, billed (free counter kept at 3)
    expect(again.status).toBe(200);
    expect((await h.store.getAccount(acc.id))?.balance).toBe(7);
    const anon = await from('198.51.100.1'); // the anonymous counter kept its 2
    expect(anon.headers['ratelimit']).toMatch(/^"daily";r=0;/);
    expect((await from('198.51.100.1')).status).toBe(429);
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
