/** Acceptance 7 and 8: whitelisted addresses (spec 5.6, D18) and suspended accounts (D8). */
import { StoreConflict } from '../../../gateway/store/types';
import { call, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const IP = '/v1/ipv4?ip=8.8.8.8';
let h: Harness;

const start = (policy: 'A' | 'B') =>
  gw.start({ policy, backendUrl: backend.url, config: { trustProxy: ['127.0.0.1/32'] } });
const from = (ip: string, key?: string) =>
  call(h.mainUrl, IP, { headers: { 'x-forwarded-for': ip, ...(key ? { 'x-api-key': key } : {}) } });
const usage = async (subject: string) =>
  (await h.store.usage([subject], '2026-11-22', '2026-11-22'))[0] ?? { free: 0, billed: 0, refused: 0 };

describe('rule set B whitelist (spec 5.6, D18)', () => {
  test('a whitelisted IPv4 address and an IPv6 /64 block are counted to their account', async () => {
    h = await start('B');
    const acc = await h.account();
    await h.store.addWhitelist(acc.id, '192.0.2.10/32', h.clock.now());
    await h.store.addWhitelist(acc.id, '2001:db8:5:6::/64', h.clock.now());
    expect((await from('192.0.2.10')).headers['x-quota-used']).toBe('1');
    expect((await from('2001:db8:5:6::abcd')).headers['x-quota-used']).toBe('2');
    expect((await from('2001:db8:5:7::1')).headers['x-quota-used']).toBe('1'); // outside the block: anonymous
    expect(await usage(`account:${acc.id}`)).toMatchObject({ free: 2 });
    expect(await usage('network:2001:db8::/40')).toMatchObject({ free: 1 });
  });

  test('precedence key > whitelist > anonymous', async () => {
    h = await start('B');
    const owner = await h.account();
    const other = await h.account();
    await h.store.addWhitelist(owner.id, '192.0.2.30/32', h.clock.now());
    const { key } = await h.key(other.id);
    await from('192.0.2.30', key); // the key's account, not the whitelist owner
    await from('192.0.2.30');
    await from('192.0.2.31');
    expect(await usage(`account:${other.id}`)).toMatchObject({ free: 1 });
    expect(await usage(`account:${owner.id}`)).toMatchObject({ free: 1 });
    expect(await usage('network:192.0.2.31/32')).toMatchObject({ free: 1 });
  });

  test('overlapping entries of two accounts are refused; removing an entry takes effect at once', async () => {
    h = await start('B');
    const a = await h.account();
    const b = await h.account();
    const entry = await h.store.addWhitelist(a.id, '2001:db8:9:9::/64', h.clock.now());
    await expect(h.store.addWhitelist(b.id, '2001:db8:9:9::5/128', h.clock.now())).rejects.toBeInstanceOf(
      StoreConflict,
    );
    await from('2001:db8:9:9::1');
    await h.store.removeWhitelist(a.id, entry.id);
    await from('2001:db8:9:9::1');
    expect(await usage(`account:${a.id}`)).toMatchObject({ free: 1 });
    expect(await usage('network:2001:db8::/40')).toMatchObject({ free: 1 });
  });
});

describe.each(['A', 'B'] as const)('rule set %s: suspended accounts (D8)', (policy) => {
  test('403 account_suspended for its keys (and its whitelisted addresses in B), counting nothing', async () => {
    h = await start(policy);
    const acc = await h.account({ balance: 10 });
    const { key, record } = await h.key(acc.id);
    if (policy === 'B') await h.store.addWhitelist(acc.id, '192.0.2.40/32', h.clock.now());
    expect((await from('203.0.113.1', key)).status).toBe(200);
    await h.store.setAccountStatus(acc.id, 'suspended');
    const r = await from('203.0.113.1', key);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 'account_suspended', status: 403 });
    if (policy === 'B') expect((await from('192.0.2.40')).json.code).toBe('account_suspended');
    expect(await usage(`key:${record.id}`)).toMatchObject({ free: 1 });
    await h.store.setAccountStatus(acc.id, 'active');
    expect((await from('203.0.113.1', key)).status).toBe(200);
  });
});
