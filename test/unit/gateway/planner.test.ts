/** The admission planner as tables: rule set × identity × address → the plan the store executes (D4–D9, D17). */
import { DAY_MS } from '../../../gateway/core/clock';
import { parseAddress, type IpAddress } from '../../../gateway/net/address';
import type { Identity } from '../../../gateway/policy/identity';
import { planAdmission } from '../../../gateway/policy/planner';
import { RULE_SET_A, RULE_SET_B, ruleSetFor } from '../../../gateway/policy/ruleset';
import type { Account, ApiKey } from '../../../gateway/store/types';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const addr = (s: string): IpAddress => parseAddress(s) as IpAddress;

const account = (over: Partial<Account> = {}): Account => ({
  id: 'acc_1',
  email: 'a@example.com',
  name: null,
  passwordHash: null,
  status: 'active',
  balance: 100,
  unlimitedUntil: null,
  createdAt: 0,
  emailVerifiedAt: 0,
  deletedAt: null,
  ...over,
});
const key = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'key_1',
  accountId: 'acc_1',
  prefix: 'gk_abcde',
  label: null,
  kind: 'payg',
  packageUntil: null,
  status: 'active',
  createdAt: 0,
  revokedAt: null,
  ...over,
});

const anon: Identity = { kind: 'anonymous' };
const payg: Identity = { kind: 'key', key: key(), account: account() };
const unlimitedKey = (until: number): Identity => ({
  kind: 'key',
  key: key({ kind: 'unlimited', packageUntil: until }),
  account: account(),
});
const planAccount = account({ unlimitedUntil: NOW + DAY_MS });

const plan = (rules = RULE_SET_A, identity: Identity = anon, a = '203.0.113.7') =>
  planAdmission({ rules, identity, address: addr(a), now: NOW, id: 'adm_1' });

describe('planner: anonymous counting units (D4, spec 5.3)', () => {
  test.each([
    ['A', RULE_SET_A, '203.0.113.7', 'network:203.0.113.7/32'],
    ['A', RULE_SET_A, '2001:db8:1:2:3:4:5:6', 'network:2001:db8:1:2::/64'],
    ['A', RULE_SET_A, '::ffff:198.51.100.9', 'network:198.51.100.9/32'],
    ['B', RULE_SET_B, '203.0.113.7', 'network:203.0.113.7/32'],
    ['B', RULE_SET_B, '2001:db8:1:2:3:4:5:6', 'network:2001:db8::/40'],
  ])('rule set %s counts %s as %s', (_n, rules, a, subject) => {
    const p = plan(rules, anon, a);
    expect(p.free).toEqual([{ id: subject, limit: 2500 }]);
    expect(p.overflow).toEqual({ kind: 'refuse', code: 'quota_exceeded' });
    expect(p.slots).toEqual([]);
    expect(p.usage).toEqual([subject]);
    expect(p.keyId).toBeNull();
    expect(p.day).toBe('2026-11-22');
  });

  test('limits overrides change the counting unit and allowance (D1)', () => {
    const rules = ruleSetFor('A', { anonymousIpv4Prefix: 24, freePerDay: 10 });
    expect(plan(rules).free).toEqual([{ id: 'network:203.0.113.0/24', limit: 10 }]);
  });
});

describe('planner: rule set A keys (D5, D17, spec 5.5)', () => {
  test('pay-per-use: free counters key and network, overflow bills 1 unit or 402, 2 fixed slots', () => {
    const p = plan(RULE_SET_A, payg, '2001:db8:1:2::99');
    expect(p.free).toEqual([
      { id: 'key:key_1', limit: 2500 },
      { id: 'network:2001:db8:1:2::/64', limit: 2500 },
    ]);
    expect(p.overflow).toEqual({ kind: 'bill', accountId: 'acc_1', price: 1, refuse: 'no_credits' });
    expect(p.slots).toEqual([
      {
        scope: 'key:key_1',
        member: '2001:db8:1:2::/64',
        capacity: 2,
        mode: 'fixed',
        windowMs: DAY_MS,
        refuse: 'key_ip_limit',
      },
    ]);
    expect(p.keyId).toBe('key_1');
    expect(p.usage).toEqual(['key:key_1', 'account:acc_1']);
  });

  test('Unlimited package valid at now: no free counters (never draws on the network), free overflow, 3 slots', () => {
    const p = plan(RULE_SET_A, unlimitedKey(NOW + 1));
    expect(p.free).toEqual([]);
    expect(p.overflow).toEqual({ kind: 'free' });
    expect(p.slots.map((s) => [s.capacity, s.mode])).toEqual([[3, 'fixed']]);
  });

  test('expired package: the key is pay-per-use with 2 slots (D17)', () => {
    const p = plan(RULE_SET_A, unlimitedKey(NOW));
    expect(p.overflow).toMatchObject({ kind: 'bill', refuse: 'no_credits' });
    expect(p.free.map((c) => c.id)).toEqual(['key:key_1', 'network:203.0.113.7/32']);
    expect(p.slots.map((s) => s.capacity)).toEqual([2]);
  });
});

describe('planner: rule set B keys and whitelist (spec 5.4–5.6, D6, D7)', () => {
  test('key on credits: account counter, 2 sliding slots, overflow bills 1 credit or 429', () => {
    const p = plan(RULE_SET_B, payg, '2001:db8:1:2:3:4:5:6');
    expect(p.free).toEqual([{ id: 'account:acc_1', limit: 2500 }]);
    expect(p.overflow).toEqual({ kind: 'bill', accountId: 'acc_1', price: 1, refuse: 'quota_exceeded' });
    expect(p.slots).toEqual([
      {
        scope: 'key:key_1',
        member: '2001:db8:1:2::/64',
        capacity: 2,
        mode: 'sliding',
        windowMs: DAY_MS,
        refuse: 'key_ip_limit',
      },
    ]);
  });

  test('key of an Unlimited account: free overflow, key slots then the account address limit (D9 order)', () => {
    const p = plan(RULE_SET_B, { kind: 'key', key: key(), account: planAccount });
    expect(p.overflow).toEqual({ kind: 'free' });
    expect(p.slots.map((s) => [s.scope, s.capacity, s.refuse])).toEqual([
      ['key:key_1', 2, 'key_ip_limit'],
      ['account:acc_1', 2, 'account_ip_limit'],
    ]);
  });

  test('whitelisted address on credits: the account counter, no slots', () => {
    const p = plan(RULE_SET_B, { kind: 'whitelist', account: account() });
    expect(p.free).toEqual([{ id: 'account:acc_1', limit: 2500 }]);
    expect(p.slots).toEqual([]);
    expect(p.keyId).toBeNull();
    expect(p.usage).toEqual(['account:acc_1']);
  });

  test('whitelisted address of an Unlimited account: the account address limit only', () => {
    const p = plan(RULE_SET_B, { kind: 'whitelist', account: planAccount });
    expect(p.slots.map((s) => s.scope)).toEqual(['account:acc_1']);
    expect(p.overflow).toEqual({ kind: 'free' });
  });

  test('an expired plan bills again', () => {
    const p = plan(RULE_SET_B, { kind: 'key', key: key(), account: account({ unlimitedUntil: NOW }) });
    expect(p.overflow).toMatchObject({ kind: 'bill' });
    expect(p.slots.map((s) => s.scope)).toEqual(['key:key_1']);
  });
});
