/** The notification sweep: one account's (or one step's) failure does not stop the others; the first is thrown. */
import { ManualClock } from '../../../gateway/core/clock';
import type { Notice } from '../../../gateway/notify/events';
import { sweepOnce, type SweepDeps } from '../../../gateway/notify/sweep';
import { RULE_SET_B } from '../../../gateway/policy/ruleset';
import type { NotificationSettings } from '../../../gateway/store/notifications';
import type { Account } from '../../../gateway/store/types';

const T = Date.UTC(2026, 10, 26, 12);
const watched = (accountId: string): NotificationSettings => ({
  accountId,
  emailAlerts: true,
  lowBalanceThreshold: 100,
  lowBalanceArmed: true,
  lowBalanceSeq: 0,
});
const account = (id: string): Account => ({ id, status: 'active', balance: 5 }) as Account;

test('an account whose read fails is skipped; the others, the endings and the pruning still run', async () => {
  const recorded: Notice[] = [];
  const disarmed: string[] = [];
  let pruned = 0;
  const store: SweepDeps['store'] = {
    lowBalanceWatch: async (after) =>
      after === null ? [watched('acc_1'), watched('acc_broken'), watched('acc_3')] : [],
    getAccount: async (id) => {
      if (id === 'acc_broken') throw new Error('store unavailable');
      return account(id);
    },
    armLowBalance: async (id) => {
      disarmed.push(id);
      return true;
    },
    unlimitedEnding: async () => [{ accountId: 'acc_9', keyId: null, until: T + 86_400_000 }],
    pruneNotifications: async () => {
      pruned += 1;
      return 0;
    },
  };
  const run = sweepOnce({
    store,
    rules: RULE_SET_B,
    clock: new ManualClock(T),
    record: async (n) => void recorded.push(n),
  });
  await expect(run).rejects.toThrow('store unavailable');
  expect(recorded.map((n) => [n.type, n.accountId])).toEqual([
    ['balance.low', 'acc_1'],
    ['balance.low', 'acc_3'],
    ['unlimited.ending', 'acc_9'],
  ]);
  expect(disarmed).toEqual(['acc_1', 'acc_3']);
  expect(pruned).toBe(1);
});

test('a clean sweep resolves', async () => {
  const store: SweepDeps['store'] = {
    lowBalanceWatch: async () => [],
    getAccount: async () => null,
    armLowBalance: async () => true,
    unlimitedEnding: async () => [],
    pruneNotifications: async () => 0,
  };
  await expect(
    sweepOnce({ store, rules: RULE_SET_B, clock: new ManualClock(T), record: async () => undefined }),
  ).resolves.toBeUndefined();
});

test('pages through every watched account, however many (more than one page)', async () => {
  const ids = Array.from({ length: 2_345 }, (_, i) => `acc_${String(i).padStart(5, '0')}`);
  const calls: [string | null, number][] = [];
  const told: string[] = [];
  const store: SweepDeps['store'] = {
    lowBalanceWatch: async (after, limit) => {
      calls.push([after, limit]);
      return ids
        .filter((id) => after === null || id > after)
        .slice(0, limit)
        .map(watched);
    },
    getAccount: async (id) => account(id),
    armLowBalance: async () => true,
    unlimitedEnding: async () => [],
    pruneNotifications: async () => 0,
  };
  await sweepOnce({
    store,
    rules: RULE_SET_B,
    clock: new ManualClock(T),
    record: async (n) => void told.push(n.accountId),
  });
  expect(told).toEqual(ids);
  expect(calls.length).toBeGreaterThan(1);
  expect(calls[0]?.[0]).toBeNull();
  // Each page starts after the previous one's last account; the last page is the short one.
  for (let i = 1; i < calls.length; i++) expect(calls[i]?.[0]).toBe(ids[i * (calls[0]?.[1] ?? 0) - 1]);
});
