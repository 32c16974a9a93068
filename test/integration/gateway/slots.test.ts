/** Acceptance 3: IP slots (spec 5.5, D6, D9, D10, D13): capacity, refusal naming when a slot frees, release modes. */
import { DAY_MS } from '../../../gateway/core/clock';
import { call, T0, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const IP = '/v1/ipv4?ip=8.8.8.8';
let h: Harness;

const start = (policy: 'A' | 'B') =>
  gw.start({ policy, backendUrl: backend.url, config: { trustProxy: ['127.0.0.1/32'] } });
const from = (key: string, ip: string) =>
  call(h.mainUrl, IP, { headers: { 'x-api-key': key, 'x-forwarded-for': ip } });
const used = (r: { headers: Record<string, unknown> }) =>
  Number(/r=(\d+)/.exec(String(r.headers['ratelimit']))?.[1]);

describe('rule set A: fixed slots, 24 h after the first request (D13)', () => {
  test('a pay-per-use key has 2 slots; the third address gets 403 key_ip_limit naming when a slot frees', async () => {
    h = await start('A');
    const acc = await h.account();
    const { key } = await h.key(acc.id);
    expect((await from(key, '203.0.113.1')).status).toBe(200);
    h.clock.advance(60_000);
    expect((await from(key, '203.0.113.2')).status).toBe(200);
    const before = used(await from(key, '203.0.113.2'));

    const r = await from(key, '203.0.113.3');
    expect(r.status).toBe(403);
    const frees = new Date(T0 + DAY_MS).toISOString();
    expect(r.json).toMatchObject({ code: 'key_ip_limit', next_slot_free_at: frees });
    expect(r.json.detail).toContain(frees);
    // A refused request takes no slot and counts nothing (D10).
    expect(used(await from(key, '203.0.113.2'))).toBe(before - 1);

    // Address 1 keeps being active, yet its slot frees 24 h after its FIRST request.
    h.clock.set(T0 + DAY_MS - 1000);
    expect((await from(key, '203.0.113.1')).status).toBe(200);
    expect((await from(key, '203.0.113.3')).status).toBe(403);
    h.clock.set(T0 + DAY_MS);
    expect((await from(key, '203.0.113.3')).status).toBe(200);
  });

  test('an IPv6 client takes one slot per /64 (D6)', async () => {
    h = await start('A');
    const acc = await h.account();
    const { key } = await h.key(acc.id);
    for (const ip of ['2001:db8:1:1::1', '2001:db8:1:1::2', '2001:db8:1:1:ffff::9', '2001:db8:1:2::1']) {
      expect((await from(key, ip)).status).toBe(200);
    }
    expect((await from(key, '2001:db8:1:3::1')).json.code).toBe('key_ip_limit');
  });

  test('an Unlimited key has 3 slots', async () => {
    h = await start('A');
    const acc = await h.account();
    const { key } = await h.key(acc.id, { kind: 'unlimited', packageUntil: T0 + 30 * DAY_MS });
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      expect((await from(key, ip)).status).toBe(200);
    expect((await from(key, '203.0.113.4')).json.code).toBe('key_ip_limit');
  });
});

describe('rule set B: sliding slots, 24 h after last seen (D13)', () => {
  test('2 slots; a slot held by an active address stays held; it frees 24 h after that address was last seen', async () => {
    h = await start('B');
    const acc = await h.account();
    const { key } = await h.key(acc.id);
    expect((await from(key, '203.0.113.1')).status).toBe(200);
    expect((await from(key, '203.0.113.2')).status).toBe(200);
    h.clock.advance(DAY_MS - 1000);
    expect((await from(key, '203.0.113.1')).status).toBe(200); // seen again: its slot slides
    const lastSeen2 = T0;
    const r = await from(key, '203.0.113.3');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      code: 'key_ip_limit',
      next_slot_free_at: new Date(lastSeen2 + DAY_MS).toISOString(),
    });
    expect(r.headers['x-quota-used']).toBe('1'); // a new UTC day: 1 admitted today; the refusal is not counted
    h.clock.set(T0 + DAY_MS);
    expect((await from(key, '203.0.113.3')).status).toBe(200); // address 2's slot freed
    expect((await from(key, '203.0.113.2')).status).toBe(403); // address 1 is still held
  });
});
