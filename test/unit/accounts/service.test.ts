/** The accounts service over a real embedded store (SQLite in memory) and a ManualClock. */
import { AccountError, InputError } from '../../../gateway/accounts/errors';
import { AccountsService } from '../../../gateway/accounts/service';
import { ManualClock } from '../../../gateway/core/clock';
import { hashKey } from '../../../gateway/core/keys';
import { keySlotCapacity } from '../../../gateway/policy/planner';
import { RULE_SET_A, RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store';
import type { Store } from '../../../gateway/store/ports';

const PEPPER = 'pepper-for-accounts-tests';
/** 2026-01-31T10:00Z: a package bought now runs to 2026-02-28T10:00Z (D17). */
const START = Date.parse('2026-01-31T10:00:00.000Z');

let store: Store;
let clock: ManualClock;
const service = (rules: RuleSet) => new AccountsService({ store, rules, clock, pepper: PEPPER });
beforeEach(async () => {
  clock = new ManualClock(START);
  store = await createStore({ kind: 'embedded', path: ':memory:' }, { clock });
});
afterEach(() => store.close());

/** The refusal an AccountError carries (fails the test when something else is thrown). */
async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AccountError);
  return (err as AccountError).refusal;
}

test('a created key is stored as its HMAC and prefix only; an unlabelled key is numbered where labels are required', async () => {
  const acc = await store.createAccount({ email: 'k@example.com', name: 'K' }, clock.now());
  const a = service(RULE_SET_A);
  const first = await a.createKey(acc.id, null);
  expect(first.key.label).toBe('Key 1');
  expect((await store.findKeyByHash(hashKey(first.secret, PEPPER)))?.key.id).toBe(first.key.id);
  expect(first.secret.startsWith(first.key.prefix)).toBe(true);
  expect((await a.createKey(acc.id, 'mine')).key.label).toBe('mine');
  expect((await service(RULE_SET_B).createKey(acc.id, null)).key.label).toBeNull();
});

test('key detail: slot capacity is the planner’s (Unlimited while the package runs, then pay-per-use)', async () => {
  const acc = await store.createAccount({ email: 'p@example.com', name: 'P' }, clock.now());
  await store.credit(acc.id, RULE_SET_A.limits.packagePrice, null, clock.now());
  const a = service(RULE_SET_A);
  const bought = await a.buyPackage(await a.account(acc.id), null);
  expect(bought.balance).toBe(0);
  expect(bought.key.packageUntil).toBe(Date.parse('2026-02-28T10:00:00.000Z'));
  expect(bought.key.label).toBe('Unlimited until 2026-02-28');
  const payg = (await a.createKey(acc.id, 'payg')).key;
  expect((await a.keyDetail(bought.key)).slotCapacity).toBe(RULE_SET_A.limits.slotsUnlimited);
  expect((await a.keyDetail(payg)).slotCapacity).toBe(RULE_SET_A.limits.slotsPayg);
  clock.set(Date.parse('2026-02-28T10:00:00.000Z'));
  const ended = await a.keyDetail(bought.key);
  expect(ended.slotCapacity).toBe(RULE_SET_A.limits.slotsPayg);
  expect(ended.slotCapacity).toBe(keySlotCapacity(RULE_SET_A, bought.key, clock.now()));
  expect(ended.slots).toEqual([]);
});

test('a package on a short balance is refused with price and balance, and changes nothing', async () => {
  const acc = await store.createAccount({ email: 's@example.com', name: 'S' }, clock.now());
  await store.credit(acc.id, 10, null, clock.now());
  const a = service(RULE_SET_A);
  const r = await refusal(a.buyPackage(await a.account(acc.id), null));
  expect(r).toEqual({ code: 'insufficient_balance', price: RULE_SET_A.limits.packagePrice, balance: 10 });
  expect((await store.getAccount(acc.id))?.balance).toBe(10);
  expect(await store.listKeys(acc.id)).toEqual([]);
});

test('features a rule set lacks are refused by name; another account’s key or entry is not found', async () => {
  const acc = await store.createAccount({ email: 'f@example.com' }, clock.now());
  const other = await store.createAccount({ email: 'o@example.com' }, clock.now());
  expect(await refusal(service(RULE_SET_A).addWhitelist(acc.id, '203.0.113.7'))).toEqual({
    code: 'not_in_rule_set',
    feature: 'whitelist',
  });
  expect(await refusal(service(RULE_SET_A).setPlan(acc.id, null))).toEqual({
    code: 'not_in_rule_set',
    feature: 'plan',
  });
  const b = service(RULE_SET_B);
  expect(await refusal(b.buyPackage(acc, null))).toEqual({ code: 'not_in_rule_set', feature: 'packages' });
  const key = (await b.createKey(other.id, null)).key;
  expect(await refusal(b.key(key.id, acc.id))).toEqual({ code: 'not_found', missing: 'key' });
  expect((await b.key(key.id, other.id)).id).toBe(key.id);
  const entry = await b.addWhitelist(other.id, ' 203.0.113.7 ');
  expect(entry.cidr).toBe('203.0.113.7/32');
  expect(await refusal(b.removeWhitelist(acc.id, entry.id))).toEqual({
    code: 'not_found',
    missing: 'whitelist_entry',
  });
  expect(() => b.whitelistCidr('10.0.0.1')).toThrow(InputError);
  await b.removeWhitelist(other.id, entry.id);
  expect(await b.whitelist(other.id)).toEqual([]);
  expect(await refusal(b.account('acc_missing'))).toEqual({ code: 'not_found', missing: 'account' });
});
