/**
 * Propagation between instances (D18, D19): a change made through one store instance shows on another instance's
 * cached identification in under one second, through Redis pub/sub, not by waiting for the cache to expire (the
 * observing instance's cache lifetime is set to 10 minutes here).
 */
import type { SharedStore } from '../../../gateway/store/shared';
import { describeShared, useSharedEnv, type RedisKind, msUntil } from './fixture';

jest.setTimeout(30_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const LONG_TTL = 600_000;

/** The propagation rules against a Redis of `kind`. */
function propagationRules(kind: RedisKind): void {
  const { env } = useSharedEnv('prop', kind);
  let a: SharedStore;
  let b: SharedStore;

  beforeAll(async () => {
    a = await env.open();
    b = await env.open({ cacheTtlMs: LONG_TTL });
  });

  it('a key revoked through one instance is seen revoked by the other within 1 s (D19)', async () => {
    const acc = await a.createAccount({ email: 'revoke@example.org' }, T0);
    const key = await a.createKey(
      { accountId: acc.id, hash: 'h-revoke', prefix: 'gk_abcde', kind: 'payg' },
      T0,
    );
    expect((await b.findKeyByHash('h-revoke'))?.key.status).toBe('active'); // now cached on b
    await a.revokeKey(key.id, T0);
    const ms = await msUntil(async () => (await b.findKeyByHash('h-revoke'))?.key.status === 'revoked');
    expect(ms).toBeLessThan(1_000);
  });

  it('a suspension through one instance shows on the other within 1 s (D19)', async () => {
    const acc = await a.createAccount({ email: 'suspend@example.org' }, T0);
    await a.createKey({ accountId: acc.id, hash: 'h-suspend', prefix: 'gk_abcde', kind: 'payg' }, T0);
    expect((await b.findKeyByHash('h-suspend'))?.account.status).toBe('active');
    await a.setAccountStatus(acc.id, 'suspended');
    const ms = await msUntil(
      async () => (await b.findKeyByHash('h-suspend'))?.account.status === 'suspended',
    );
    expect(ms).toBeLessThan(1_000);
  });

  it('a plan change (B Unlimited) shows on the other instance within 1 s', async () => {
    const acc = await a.createAccount({ email: 'plan@example.org' }, T0);
    await a.createKey({ accountId: acc.id, hash: 'h-plan', prefix: 'gk_abcde', kind: 'payg' }, T0);
    expect((await b.findKeyByHash('h-plan'))?.account.unlimitedUntil).toBeNull();
    await a.setUnlimitedUntil(acc.id, T0 + 86_400_000);
    const ms = await msUntil(
      async () => (await b.findKeyByHash('h-plan'))?.account.unlimitedUntil === T0 + 86_400_000,
    );
    expect(ms).toBeLessThan(1_000);
  });

  it('whitelist additions and removals show on the other instance within 1 s (D18)', async () => {
    const acc = await a.createAccount({ email: 'wl@example.org' }, T0);
    expect(await b.findWhitelistedAccount('203.0.113.50')).toBeNull(); // the (empty) whitelist is cached on b
    const entry = await a.addWhitelist(acc.id, '203.0.113.50/32', T0);
    const added = await msUntil(async () => (await b.findWhitelistedAccount('203.0.113.50'))?.id === acc.id);
    expect(added).toBeLessThan(1_000);
    await a.removeWhitelist(acc.id, entry.id);
    const removed = await msUntil(async () => (await b.findWhitelistedAccount('203.0.113.50')) === null);
    expect(removed).toBeLessThan(1_000);
  });

  it('a rotation through one instance shows on the other within 1 s: the old secret ends or gets its end (D39)', async () => {
    const acc = await a.createAccount({ email: 'rotate@example.org' }, T0);
    const key = await a.createKey(
      { accountId: acc.id, hash: 'h-rot-1', prefix: 'gk_abcde', kind: 'payg' },
      T0,
    );
    expect((await b.findKeyByHash('h-rot-1'))?.secretUntil).toBeUndefined(); // cached on b, no end
    expect(await b.findKeyByHash('h-rot-2')).toBeNull(); // the new secret cached unknown on b
    await a.rotateKey(key.id, { hash: 'h-rot-2', prefix: 'gk_fghij' }, T0 + 60_000, T0);
    const ended = await msUntil(async () => (await b.findKeyByHash('h-rot-1'))?.secretUntil === T0 + 60_000);
    expect(ended).toBeLessThan(1_000);
    expect((await b.findKeyByHash('h-rot-2'))?.key.id).toBe(key.id);
    // A revocation reaches the previous secret too; without an overlap the old secret is unknown everywhere.
    await a.rotateKey(key.id, { hash: 'h-rot-3', prefix: 'gk_klmno' }, T0 + 60_000, T0);
    const second = await msUntil(async () => (await b.findKeyByHash('h-rot-2'))?.secretUntil === T0 + 60_000);
    expect(second).toBeLessThan(1_000);
    await a.revokeKey(key.id, T0);
    const revoked = await msUntil(async () => (await b.findKeyByHash('h-rot-2'))?.key.status === 'revoked');
    expect(revoked).toBeLessThan(1_000);
    const other = await a.createKey(
      { accountId: acc.id, hash: 'h-rot-4', prefix: 'gk_abcde', kind: 'payg' },
      T0,
    );
    expect((await b.findKeyByHash('h-rot-4'))?.key.id).toBe(other.id);
    await a.rotateKey(other.id, { hash: 'h-rot-5', prefix: 'gk_pqrst' }, null, T0);
    const gone = await msUntil(async () => (await b.findKeyByHash('h-rot-4')) === null);
    expect(gone).toBeLessThan(1_000);
  });

  it('a key created on one instance is found on the other even after a miss was cached', async () => {
    const acc = await a.createAccount({ email: 'create@example.org' }, T0);
    expect(await b.findKeyByHash('h-new')).toBeNull();
    await a.createKey({ accountId: acc.id, hash: 'h-new', prefix: 'gk_abcde', kind: 'payg' }, T0);
    const ms = await msUntil(async () => (await b.findKeyByHash('h-new')) !== null);
    expect(ms).toBeLessThan(1_000);
  });
}

describeShared(
  'shared store: propagation between instances (D18, D19)',
  () => {
    describe('one Redis', () => propagationRules('local'));
    describe('three-node Redis Cluster', () => propagationRules('cluster'));
  },
  ['redis-server', 'redis-cli'],
);
