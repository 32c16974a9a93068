/**
 * Allowance alerts on the request path (D30): nothing below 80 %, one record per subject, level and UTC day
 * (per key in A, per account in B), no second call for a recorded level, and a failed record retried later.
 */
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { AllowanceWatch } from '../../../gateway/notify/allowance';
import type { Notice } from '../../../gateway/notify/events';
import { notificationsConfigSchema } from '../../../gateway/notify/config';
import type { Account, ApiKey } from '../../../gateway/store/types';

const T = Date.UTC(2026, 10, 26, 12);
const account = { id: 'acc_1' } as Account;
const key = (id: string) => ({ kind: 'key' as const, key: { id } as ApiKey, account });

function watch(rules = RULE_SET_A, fail = false) {
  const seen: Notice[] = [];
  const w = new AllowanceWatch(
    rules,
    async (n) => {
      seen.push(n);
      if (fail) throw new Error('store down');
    },
    () => undefined,
  );
  return { w, seen };
}

test('A: below 80 % nothing; 80 % once per key and day; 100 % once (with 80 % if it was missed)', () => {
  const { w, seen } = watch();
  w.observe(key('k1'), { used: 1999, limit: 2500 }, T);
  expect(seen).toEqual([]);
  for (let used = 2000; used <= 2100; used++) w.observe(key('k1'), { used, limit: 2500 }, T);
  expect(seen.map((n) => [n.type, n.data['keyId']])).toEqual([['allowance.80', 'k1']]);
  w.observe(key('k2'), { used: 2500, limit: 2500 }, T);
  for (let i = 0; i < 5; i++) w.observe(key('k1'), { used: 2500, limit: 2500 }, T);
  expect(seen.map((n) => `${n.type}:${String(n.data['keyId'])}`)).toEqual([
    'allowance.80:k1',
    'allowance.80:k2',
    'allowance.100:k2',
    'allowance.100:k1',
  ]);
  // The next UTC day starts afresh.
  w.observe(key('k1'), { used: 2000, limit: 2500 }, T + 86_400_000);
  expect(seen).toHaveLength(5);
  expect(seen[4]?.name).toBe('allowance.80:k1:2026-11-27');
});

test("B: the allowance is the account's, whichever key or whitelisted address used it", () => {
  const { w, seen } = watch(RULE_SET_B);
  w.observe(key('k1'), { used: 2000, limit: 2500 }, T);
  w.observe(key('k2'), { used: 2001, limit: 2500 }, T);
  w.observe({ kind: 'whitelist', account }, { used: 2002, limit: 2500 }, T);
  expect(seen.map((n) => [n.name, n.data['keyId']])).toEqual([['allowance.80:acc_1:2026-11-26', null]]);
});

test('a record that failed is tried again on a later request', async () => {
  const { w, seen } = watch(RULE_SET_A, true);
  w.observe(key('k1'), { used: 2000, limit: 2500 }, T);
  await new Promise((r) => setImmediate(r));
  w.observe(key('k1'), { used: 2001, limit: 2500 }, T);
  expect(seen).toHaveLength(2);
});

test('the config section is strict and has defaults', () => {
  expect(notificationsConfigSchema.parse({})).toMatchObject({
    email: true,
    webhooks: { allowPrivateTargets: false, maxEndpoints: 5 },
    retry: { maxAttempts: 8 },
  });
  expect(() => notificationsConfigSchema.parse({ webhook: {} })).toThrow(/webhook/);
  expect(() => notificationsConfigSchema.parse({ retry: { maxAttempts: 0 } })).toThrow();
});

test('the delivery lease must outlast the longest send, so no delivery is sent twice', () => {
  // E-mail on: a send is bounded at 40 s (connection, greeting, socket timeouts), plus a 5 s margin.
  expect(() => notificationsConfigSchema.parse({ worker: { leaseMs: 44_999 } })).toThrow(/leaseMs/);
  expect(notificationsConfigSchema.parse({ worker: { leaseMs: 45_000 } }).worker.leaseMs).toBe(45_000);
  // E-mail off: the webhook timeout decides.
  expect(() =>
    notificationsConfigSchema.parse({
      email: false,
      webhooks: { timeoutMs: 30_000 },
      worker: { leaseMs: 30_000 },
    }),
  ).toThrow(/at least 35000 ms/);
  expect(
    notificationsConfigSchema.parse({
      email: false,
      webhooks: { timeoutMs: 2_000 },
      worker: { leaseMs: 7_000 },
    }).worker.leaseMs,
  ).toBe(7_000);
});
