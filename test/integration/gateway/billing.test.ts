/** Acceptance 4, 5, 6: the shared allowance (D5), billing past it (D7, D16), Unlimited packages and plans (D17). */
import { DAY_MS } from '../../../gateway/core/clock';
import { burst, call, tally, T0, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const IP = '/v1/ipv4?ip=8.8.8.8';
let h: Harness;

const start = (policy: 'A' | 'B', limits: Record<string, number> = {}) =>
  gw.start({ policy, backendUrl: backend.url, config: { trustProxy: ['127.0.0.1/32'], limits } });
const anon = (ip: string) => call(h.mainUrl, IP, { headers: { 'x-forwarded-for': ip } });
const keyed = (key: string, ip: string) =>
  call(h.mainUrl, IP, { headers: { 'x-api-key': key, 'x-forwarded-for': ip } });
const balance = async (id: string) => (await h.store.getAccount(id))?.balance;

describe('rule set A: a network and its keys share one allowance (D5)', () => {
  test('after 2,000 anonymous requests a key has 500 free there, then is billed; elsewhere up to its own 2,500', async () => {
    h = await start('A');
    const acc = await h.account({ balance: 1_000 });
    const { key, record } = await h.key(acc.id);
    expect(tally(await burst(2000, 16, () => anon('203.0.113.5')))).toEqual({ 200: 2000 });
    expect(tally(await burst(500, 16, () => keyed(key, '203.0.113.5')))).toEqual({ 200: 500 });
    expect(await balance(acc.id)).toBe(1_000); // 500 free
    expect((await anon('203.0.113.5')).status).toBe(429); // the network's 2,500 are used by both
    expect((await keyed(key, '203.0.113.5')).status).toBe(200);
    expect(await balance(acc.id)).toBe(999); // the 501st keyed request there is billed
    // From another network the key's own allowance continues: 2,500 − 500 = 2,000 more free.
    expect(tally(await burst(2000, 16, () => keyed(key, '198.51.100.7')))).toEqual({ 200: 2000 });
    expect(await balance(acc.id)).toBe(999);
    expect((await keyed(key, '198.51.100.7')).status).toBe(200);
    expect(await balance(acc.id)).toBe(998);
    const rows = await h.store.usage([`key:${record.id}`], '2026-11-22', '2026-11-22');
    expect(rows[0]).toMatchObject({ free: 2500, billed: 2 });
  }, 120_000);
});

describe('rule set A: billing 0.0001 EUR per request past the allowance (spec 5.4, D16)', () => {
  test('billed exactly 1 unit per request; empty balance → 402 no_credits; never below zero', async () => {
    h = await start('A', { freePerDay: 2 });
    const acc = await h.account({ balance: 3 });
    const { key } = await h.key(acc.id);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await keyed(key, '203.0.113.9')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 402]);
    expect(await balance(acc.id)).toBe(0);
    const r = await keyed(key, '203.0.113.9');
    expect(r.json).toMatchObject({ code: 'no_credits', status: 402 });
    // D35: the three billed requests are one hourly row of the key.
    const charges = (await h.store.ledger(acc.id, 100)).filter((e) => e.kind === 'charge');
    expect(charges.map((e) => [e.count, e.amount])).toEqual([[3, -3]]);
    // Concurrency cannot overdraw: a burst against 5 units answers exactly 5 × 200.
    await h.store.credit(acc.id, 5, 'topup-1', h.clock.now());
    expect(tally(await burst(40, 20, () => keyed(key, '203.0.113.9')))).toEqual({ 200: 5, 402: 35 });
    expect(await balance(acc.id)).toBe(0);
  });
});

describe('rule set B: one credit per request past the account-wide allowance (spec 5.4, D7)', () => {
  test('keys and whitelist share the account allowance; then credits; then 429 quota_exceeded with X-Quota-Reset', async () => {
    h = await start('B', { freePerDay: 3 });
    const acc = await h.account({ balance: 2 });
    const k1 = (await h.key(acc.id)).key;
    const k2 = (await h.key(acc.id)).key;
    await h.store.addWhitelist(acc.id, '192.0.2.10/32', h.clock.now());
    expect((await keyed(k1, '203.0.113.1')).status).toBe(200);
    expect((await keyed(k2, '203.0.113.2')).status).toBe(200);
    const w = await anon('192.0.2.10');
    expect(w.status).toBe(200);
    expect(w.headers['x-quota-used']).toBe('3');
    expect(await balance(acc.id)).toBe(2);
    expect((await keyed(k1, '203.0.113.1')).status).toBe(200);
    expect((await anon('192.0.2.10')).status).toBe(200);
    expect(await balance(acc.id)).toBe(0);
    const r = await keyed(k2, '203.0.113.2');
    expect(r.status).toBe(429);
    expect(r.json.code).toBe('quota_exceeded');
    expect(r.headers['x-quota-reset']).toBe(String((Math.floor(T0 / DAY_MS) + 1) * 86400));
    expect(r.headers['x-quota-limit']).toBe('3');
    expect(r.headers['x-quota-used']).toBe('3');
    expect(await balance(acc.id)).toBe(0);
  });
});

describe('Unlimited (spec 5.4, D5, D17)', () => {
  test('A: an Unlimited key is never charged nor draws on the network; when the package expires it is pay-per-use with 2 slots', async () => {
    h = await start('A', { freePerDay: 2 });
    const acc = await h.account({ balance: 1 });
    const { key } = await h.key(acc.id, { kind: 'unlimited', packageUntil: T0 + DAY_MS / 2 });
    expect(tally(await burst(10, 4, () => keyed(key, '203.0.113.1')))).toEqual({ 200: 10 });
    expect(await balance(acc.id)).toBe(1);
    expect((await anon('203.0.113.1')).status).toBe(200); // the network's allowance is untouched (D5)
    expect((await anon('203.0.113.1')).status).toBe(200);
    expect((await keyed(key, '203.0.113.2')).status).toBe(200);
    expect((await keyed(key, '203.0.113.3')).status).toBe(200); // third slot

    h.clock.set(T0 + DAY_MS / 2); // the package ends (slots taken at T0 still held for 24 h)
    expect((await keyed(key, '203.0.113.4')).json.code).toBe('key_ip_limit');
    h.clock.set(T0 + DAY_MS); // a new day, old slots freed
    expect((await keyed(key, '203.0.113.4')).status).toBe(200);
    expect((await keyed(key, '203.0.113.5')).status).toBe(200);
    expect((await keyed(key, '203.0.113.6')).json).toMatchObject({ code: 'key_ip_limit' }); // 2 slots now
    expect((await keyed(key, '203.0.113.4')).status).toBe(200); // past the 2 free of the day: billed the last unit
    expect(await balance(acc.id)).toBe(0);
    expect((await keyed(key, '203.0.113.4')).json.code).toBe('no_credits');
  });

  test('B: an Unlimited account is never charged past the allowance and may be used from at most 2 addresses per 24 h', async () => {
    h = await start('B', { freePerDay: 2 });
    const acc = await h.account({ balance: 0, unlimitedUntil: T0 + 30 * DAY_MS });
    const k1 = (await h.key(acc.id)).key;
    const k2 = (await h.key(acc.id)).key;
    await h.store.addWhitelist(acc.id, '192.0.2.20/32', h.clock.now());
    expect(tally(await burst(6, 3, () => keyed(k1, '203.0.113.1')))).toEqual({ 200: 6 });
    expect((await anon('192.0.2.20')).status).toBe(200); // the whitelist is the second address
    const r = await keyed(k2, '203.0.113.3');
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      code: 'account_ip_limit',
      next_slot_free_at: new Date(T0 + DAY_MS).toISOString(),
    });
    expect((await keyed(k2, '203.0.113.1')).status).toBe(200); // same address, another key: fine
    expect(await balance(acc.id)).toBe(0);
    expect((await h.store.ledger(acc.id, 10)).filter((e) => e.kind === 'charge')).toEqual([]);
  });
});
