/**
 * Key rotation through a running gateway (D39): the new secret works at once and is the same key (its slots, usage
 * and restrictions); the old secret works until the overlap ends and not a millisecond after (judged per request
 * with the gateway's clock); without an overlap it stops at once. A key past its end date is refused like a revoked
 * one. Embedded store here; the shared store's propagation is test/integration/shared/propagation.test.ts.
 */
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { call, PEPPER } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

let g: Injected;
beforeAll(async () => {
  g = await startInjected('A', { trustProxy: ['127.0.0.1/32'] });
});
afterAll(() => g.close());

const HOUR = 3_600_000;
const use = (key: string, from = '198.51.100.1') =>
  call(g.mainUrl, '/v1/reverse?lat=48.85&lon=2.29', {
    headers: { 'x-api-key': key, 'x-forwarded-for': from },
  });
const secretOf = (key: string) => ({ hash: hashKey(key, PEPPER), prefix: keyPrefix(key) });

test('the old secret works until the overlap ends, then is refused; the new one is the same key', async () => {
  const acc = await g.account(1_000_000);
  const { key: old, id } = await g.key(acc.id);
  expect((await use(old)).status).toBe(200);
  const fresh = generateKey();
  const now = g.clock.now();
  const rotated = await g.store.rotateKey(id, secretOf(fresh), now + HOUR, now);
  expect(rotated.id).toBe(id);
  expect((await use(fresh)).status).toBe(200);
  expect((await use(old)).status).toBe(200);
  const line = g.nextLogLine();
  await use(old);
  expect((await line)['keyId']).toBe(id);
  g.clock.advance(HOUR - 1);
  expect((await use(old)).status).toBe(200);
  g.clock.advance(1);
  const refused = await use(old);
  expect(refused.status).toBe(401);
  expect(refused.json).toMatchObject({ code: 'invalid_key' });
  expect((await use(fresh)).status).toBe(200);
  // One key: the slots taken under either secret are the key's (a third address is refused in A: 2 slots).
  expect((await use(fresh, '198.51.100.2')).status).toBe(200);
  const third = await use(fresh, '198.51.100.3');
  expect(third.status).toBe(403);
  expect(third.json).toMatchObject({ code: 'key_ip_limit' });
});

test('without an overlap the old secret is refused at once (the identity cache is dropped)', async () => {
  const acc = await g.account(0);
  const { key: old, id } = await g.key(acc.id);
  expect((await use(old)).status).toBe(200); // cached
  const fresh = generateKey();
  await g.store.rotateKey(id, secretOf(fresh), null, g.clock.now());
  expect((await use(old)).status).toBe(401);
  expect((await use(fresh)).status).toBe(200);
});

test('restrictions are kept through a rotation', async () => {
  const acc = await g.account(0);
  const { key: old, id } = await g.key(acc.id);
  await g.store.setKeyRestrictions(id, { referrers: [], cidrs: ['203.0.113.0/24'] });
  const fresh = generateKey();
  await g.store.rotateKey(id, secretOf(fresh), null, g.clock.now());
  expect((await use(fresh, '198.51.100.1')).json).toMatchObject({ code: 'key_restricted' });
  expect((await use(fresh, '203.0.113.9')).status).toBe(200);
  expect((await use(old, '203.0.113.9')).status).toBe(401);
});

test('a key past its end date is refused like a revoked key; clearing the date restores it', async () => {
  const acc = await g.account(0);
  const { key, id } = await g.key(acc.id);
  await g.store.setKeyExpiry(id, g.clock.now() + HOUR);
  expect((await use(key)).status).toBe(200);
  g.clock.advance(HOUR);
  const r = await use(key);
  expect(r.status).toBe(401);
  expect(r.json).toMatchObject({ code: g.config.rules.revokedCode });
  await g.store.setKeyExpiry(id, null);
  expect((await use(key)).status).toBe(200);
});
