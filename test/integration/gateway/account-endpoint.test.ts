/**
 * `GET /v1/account` on the main host (issue 15 item 5): the caller's allowance used/remaining and reset time, the
 * balance, the Unlimited package or plan and its end, the IP slots in use; identified like any request, never
 * counted (no admission, no slot, no usage row, no backend call).
 */
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { call } from '../../helpers/gateway-harness';
import { PEPPER, T0 } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

const DAY = 86_400_000;

describe('GET /v1/account, rule set A', () => {
  let g: Injected;
  beforeAll(async () => {
    g = await startInjected('A', { limits: { freePerDay: 5 } });
  });
  afterAll(() => g.close());

  const get = (path: string, key?: string) =>
    call(g.mainUrl, path, key === undefined ? {} : { headers: { 'x-api-key': key } });

  test('shows the allowance used today, the balance and the slot in use; calling it counts nothing', async () => {
    const acc = await g.account(12_345);
    const { key, id } = await g.key(acc.id);
    for (let i = 0; i < 2; i++) expect((await get('/v1/reverse?lat=48.85&lon=2.29', key)).status).toBe(200);
    const backendCalls = g.calls.length;

    const r = await get('/v1/account', key);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json).toEqual({
      account: { id: acc.id, status: 'active' },
      key: { id, prefix: keyPrefix(key), label: null, kind: 'payg' },
      allowance: {
        limit: 5,
        used: 2,
        remaining: 3,
        resets_at: new Date(T0 - (T0 % DAY) + DAY).toISOString(),
      },
      requests: { today: 2, month: 2 },
      balance: { units: 12_345, amount: '1.2345', unit: 'EUR' },
      billable_requests: 12_345 / g.config.rules.limits.pricePerRequest,
      unlimited: null,
      slots: [
        {
          scope: 'key',
          capacity: g.config.rules.limits.slotsPayg,
          in_use: 1,
          next_free_at: new Date(T0 + DAY).toISOString(),
        },
      ],
    });

    // Asked again: nothing was counted, charged, held or forwarded by the first call.
    const again = await get('/v1/account', key);
    expect(again.json).toMatchObject({ allowance: { used: 2, remaining: 3 }, requests: { today: 2 } });
    expect(g.calls.length).toBe(backendCalls);
    expect((await g.store.getAccount(acc.id))?.balance).toBe(12_345);
  });

  test('past the allowance, the balance and billable requests are read fresh, not from the cached key identity', async () => {
    const price = g.config.rules.limits.pricePerRequest;
    const acc = await g.account(10 * price);
    const { key } = await g.key(acc.id);
    expect((await get('/v1/account', key)).json).toMatchObject({ billable_requests: 10 }); // the identity is cached now
    for (let i = 0; i < 8; i++) expect((await get('/v1/reverse?lat=48.85&lon=2.29', key)).status).toBe(200);
    // The free allowance (shared with the network under rule set A) is used up, the rest was billed.
    const stored = (await g.store.getAccount(acc.id))?.balance ?? NaN;
    expect(stored).toBeLessThanOrEqual(7 * price);
    expect((await get('/v1/account', key)).json).toMatchObject({
      balance: { units: stored },
      billable_requests: stored / price,
    });
  });

  test('an Unlimited package key shows no allowance and when its package ends', async () => {
    const acc = await g.account(0);
    const key = generateKey();
    const until = T0 + 30 * DAY;
    const record = await g.store.createKey(
      {
        accountId: acc.id,
        hash: hashKey(key, PEPPER),
        prefix: keyPrefix(key),
        kind: 'unlimited',
        packageUntil: until,
      },
      g.clock.now(),
    );
    const r = await get('/v1/account', key);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      key: { id: record.id, kind: 'unlimited' },
      allowance: null,
      billable_requests: null,
      unlimited: { until: new Date(until).toISOString() },
      slots: [
        { scope: 'key', capacity: g.config.rules.limits.slotsUnlimited, in_use: 0, next_free_at: null },
      ],
    });
  });

  test('without a key: 401 missing_key; an unknown key: 401 invalid_key (problem+json)', async () => {
    const none = await get('/v1/account');
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ code: 'missing_key' });
    const bad = await get('/v1/account', 'gk_unknown_key_0123456789abcdef0123456789');
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ code: 'invalid_key' });
  });

  test('a method other than GET is not the account endpoint', async () => {
    const acc = await g.account(0);
    const { key } = await g.key(acc.id);
    const r = await call(g.mainUrl, '/v1/account', { method: 'POST', headers: { 'x-api-key': key } });
    expect(r.status).not.toBe(200);
    expect(r.status).toBeLessThan(500);
  });
});

describe('GET /v1/account, rule set B', () => {
  let g: Injected;
  beforeAll(async () => {
    g = await startInjected('B', { limits: { freePerDay: 4 } });
  });
  afterAll(() => g.close());

  test('a whitelisted address sees its account in credits, without a key', async () => {
    const acc = await g.account(7);
    await g.store.addWhitelist(acc.id, '127.0.0.1/32', g.clock.now());
    expect((await call(g.mainUrl, '/v1/reverse?lat=1&lon=2')).status).toBe(200);
    const r = await call(g.mainUrl, '/v1/account');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      account: { id: acc.id, status: 'active' },
      key: null,
      allowance: { limit: 4, used: 1, remaining: 3 },
      balance: { units: 7, amount: '7', unit: 'credits' },
      billable_requests: 7,
      unlimited: null,
      slots: [],
    });
    await g.store.removeWhitelist(acc.id, (await g.store.listWhitelist(acc.id))[0]!.id);
  });

  test('an account on the Unlimited plan shows its end and its address limit', async () => {
    const acc = await g.account(0);
    const until = T0 + 10 * DAY;
    await g.store.setUnlimitedUntil(acc.id, until);
    const { key } = await g.key(acc.id);
    expect((await call(g.mainUrl, '/v1/reverse?lat=1&lon=2', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
    const r = await call(g.mainUrl, '/v1/account', { headers: { 'x-api-key': key } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      allowance: null, // Unlimited has no daily cap (D17)
      requests: { today: 1 },
      billable_requests: null,
      unlimited: { until: new Date(until).toISOString() },
      slots: [
        { scope: 'key', in_use: 1 },
        { scope: 'account', capacity: g.config.rules.limits.unlimitedAccountAddresses, in_use: 1 },
      ],
    });
  });
});
