/**
 * Admissions of one event-loop turn on one Redis server go out as one script call (admission.ts, lua-admit.ts
 * ADMIT_MANY_LUA), each as all-or-nothing as alone: the calls are counted on the client, the outcomes read back from
 * Redis and PostgreSQL. Real PostgreSQL and Redis.
 */
import { randomBytes } from 'node:crypto';
import type { SharedStore } from '../../../gateway/store/shared';
import type { AdmissionPlan, AdmissionResult } from '../../../gateway/store/types';
import { utcDay } from '../../../gateway/core/clock';
import { billedPlan, describeShared, T0, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

/** An anonymous caller's plan: one free counter of `limit` a day, refused beyond it. */
const anonymous = (counter: string, limit: number, i: number): AdmissionPlan => ({
  id: `turn-${i}-${randomBytes(4).toString('hex')}`,
  now: T0,
  day: utcDay(T0),
  slots: [],
  free: [{ id: counter, limit }],
  overflow: { kind: 'refuse', code: 'quota_exceeded' },
  usage: [counter],
  keyId: null,
});

type Calls = { one: number; many: number };

/** Count the store's admission script calls (one admission, a turn's batch) while `run` runs. */
async function admitCalls<T>(
  store: SharedStore,
  run: () => Promise<T>,
): Promise<{ calls: Calls; result: T }> {
  const client = store.redis as unknown as Record<
    'ggAdmit' | 'ggAdmitMany',
    (...a: unknown[]) => Promise<unknown>
  >;
  const one = jest.spyOn(client, 'ggAdmit');
  const many = jest.spyOn(client, 'ggAdmitMany');
  try {
    const result = await run();
    return { calls: { one: one.mock.calls.length, many: many.mock.calls.length }, result };
  } finally {
    one.mockRestore();
    many.mockRestore();
  }
}

const counterValue = async (store: SharedStore, id: string): Promise<number> =>
  Number((await store.redis.get(store.layout.counter(id, utcDay(T0)))) ?? 0);

describeShared('admissions of one turn share one script call (one Redis)', () => {
  const { env } = useSharedEnv('admit-turn');

  test('twenty callers in one turn: one call, each admitted and counted once', async () => {
    const store = await env.open({ leases: false, drainIntervalMs: 1e9 });
    const counters = Array.from({ length: 20 }, (_, i) => `ip:10.1.0.${i}`);
    const { calls, result } = await admitCalls(store, () =>
      Promise.all(counters.map((c, i) => store.admit(anonymous(c, 5, i)))),
    );
    expect(calls).toEqual({ one: 0, many: 1 });
    expect(result.every((r) => r.admitted)).toBe(true);
    for (const c of counters) expect(await counterValue(store, c)).toBe(1);
    // Each admission's own quota, not its neighbour's.
    for (const r of result) if (r.admitted) expect(r.quota).toMatchObject({ limit: 5, used: 1 });
  });

  test('one counter, more callers in one turn than it allows: exactly its limit admitted, the rest refused', async () => {
    const store = await env.open({ leases: false, drainIntervalMs: 1e9 });
    const counter = `ip:10.2.0.${randomBytes(1)[0]}`;
    const { calls, result } = await admitCalls(store, () =>
      Promise.all(Array.from({ length: 7 }, (_, i) => store.admit(anonymous(counter, 3, i)))),
    );
    expect(calls).toEqual({ one: 0, many: 1 });
    const admitted = result.filter((r) => r.admitted);
    expect(admitted).toHaveLength(3);
    // Queue order is admission order: the first three.
    expect(result.map((r) => r.admitted)).toEqual([true, true, true, false, false, false, false]);
    for (const r of result.slice(3))
      expect(r).toMatchObject({ admitted: false, code: 'quota_exceeded' } satisfies Partial<AdmissionResult>);
    expect(await counterValue(store, counter)).toBe(3);
    // A refused admission left nothing behind: releasing the admitted ones brings the counter back to 0.
    for (const r of admitted) if (r.admitted) await store.release(r.ticket);
    expect(await counterValue(store, counter)).toBe(0);
  });

  test('a lone admission is one call of the single script', async () => {
    const store = await env.open({ leases: false, drainIntervalMs: 1e9 });
    const { calls, result } = await admitCalls(store, () => store.admit(anonymous('ip:10.3.0.1', 5, 0)));
    expect(calls).toEqual({ one: 1, many: 0 });
    expect(result.admitted).toBe(true);
  });

  test('a billed admission whose wallet is not in Redis yet is retried alone; its neighbours are unaffected', async () => {
    const store = await env.open({ leases: false, drainIntervalMs: 1e9 });
    const acc = await store.createAccount({ email: `t${randomBytes(5).toString('hex')}@example.org` }, T0);
    await store.credit(acc.id, 10, null, T0);
    // Another instance's view: the wallet is in PostgreSQL only (as after a Redis restart or on first use).
    await store.redis.del(store.layout.wallet(acc.id));
    const plans = [
      anonymous('ip:10.4.0.1', 5, 0),
      billedPlan(acc.id, 1, 'turn', T0, 2),
      anonymous('ip:10.4.0.2', 5, 2),
    ];
    const { calls, result } = await admitCalls(store, () => Promise.all(plans.map((p) => store.admit(p))));
    expect(calls.many).toBe(1);
    expect(calls.one).toBe(1); // the billed one, after its wallet was loaded
    expect(result.map((r) => r.admitted)).toEqual([true, true, true]);
    expect(result[1]).toMatchObject({ admitted: true, billed: true, charged: 2 });
    expect((await store.getAccount(acc.id))?.balance).toBe(8);
  });
});
