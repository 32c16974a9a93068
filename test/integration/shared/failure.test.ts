/**
 * Failure behaviour (issue 4, acceptance 6, store part).
 * - Redis killed and restarted under billed load (a private redis-server on a free port, AOF fsync always): while it
 *   is down every admission throws StoreUnavailableError promptly; afterwards admissions work again with no manual
 *   step, and nothing is double-counted: usage, ledger charges and the balance match the admissions that answered
 *   "admitted" exactly, and reconcile finds no drift.
 * - PostgreSQL unreachable (simulated: the store reaches PostgreSQL through a TCP proxy the test cuts; the machine's
 *   PostgreSQL is never stopped): known keys keep working from the cache, billed admissions keep working on Redis,
 *   history reads fail with StoreUnavailableError, and the ledger catches up when the proxy is restored.
 */
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../../../gateway/core/clock';
import { randomBytes } from 'node:crypto';
import { reconcile, StoreUnavailableError, type SharedStore } from '../../../gateway/store/shared';
import type { AdmissionPlan, AdmissionResult } from '../../../gateway/store/types';
import { TcpProxy } from '../../helpers/pg-proxy';

import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = '2026-11-22';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function billedPlan(accountId: string, keyId: string, i: number): AdmissionPlan {
  return {
    id: `f-${i}-${randomBytes(4).toString('hex')}`,
    now: T0,
    day: DAY,
    slots: [
      {
        scope: `key:${keyId}`,
        member: '198.51.100.7',
        capacity: 2,
        mode: 'fixed',
        windowMs: 86_400_000,
        refuse: 'key_ip_limit',
      },
    ],
    free: [{ id: `key:${keyId}`, limit: 0 }],
    overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
    usage: [`key:${keyId}`],
    keyId,
  };
}

interface Outcomes {
  admitted: number;
  refused: number;
  unavailable: number;
  other: unknown[];
  slowestFaultMs: number;
}

/** Admit continuously with `workers` parallel loops until `stop()` is called. */
function load(store: SharedStore, mk: (i: number) => AdmissionPlan, workers = 8) {
  const out: Outcomes = { admitted: 0, refused: 0, unavailable: 0, other: [], slowestFaultMs: 0 };
  let running = true;
  let i = 0;
  const loop = async () => {
    while (running) {
      const t = performance.now();
      try {
        const r: AdmissionResult = await store.admit(mk(i++));
        if (r.admitted) out.admitted += 1;
        else out.refused += 1;
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          out.unavailable += 1;
          out.slowestFaultMs = Math.max(out.slowestFaultMs, performance.now() - t);
          await sleep(5);
        } else out.other.push(err);
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, loop));
  return {
    out,
    stop: async () => {
      running = false;
      await done;
      return out;
    },
  };
}

describeShared(
  'shared store: failure behaviour',
  () => {
    describe('Redis killed and restarted under billed load', () => {
      const { env, redis } = useSharedEnv('fail', 'private');

      it('faults fast while down, recovers by itself, and counts every admitted request exactly once', async () => {
        // With credit leases (the default): most admissions are decided from a lease, also for a while after Redis
        // went down; the holder's flush posts them once Redis answers again, and the reads below flush it first.
        const store = await env.open();
        const acc = await store.createAccount({ email: 'redis-down@example.org' }, T0);
        await store.credit(acc.id, 100_000, null, T0);
        const l = load(store, (i) => billedPlan(acc.id, 'key_fail', i));
        await sleep(500);
        const beforeKill = l.out.admitted;
        await redis.stop();
        await sleep(700);
        const duringDown = { admitted: l.out.admitted, unavailable: l.out.unavailable };
        const flushesBefore = store.leases?.stats.flushes ?? 0;
        await redis.start();
        const deadline = performance.now() + 10_000;
        // Recovered: admissions again, and (leases answer from memory for a while) a holder flush Redis applied.
        const recovered = () =>
          l.out.admitted >= duringDown.admitted + 50 && (store.leases?.stats.flushes ?? 1) > flushesBefore;
        while (!recovered() && performance.now() < deadline) await sleep(50);
        const out = await l.stop();
        if (process.env.GG_VERBOSE) console.log({ beforeKill, duringDown, out, leases: store.leases?.stats });

        expect(beforeKill).toBeGreaterThan(0);
        expect(duringDown.unavailable).toBeGreaterThan(0);
        expect(out.slowestFaultMs).toBeLessThan(2_500); // fails fast (command timeout 2 s at worst)
        expect(out.admitted).toBeGreaterThanOrEqual(duringDown.admitted + 50); // recovered with no manual step
        expect(store.leases?.stats.flushes).toBeGreaterThan(flushesBefore);
        expect(out.other).toEqual([]);

        await store.releasePending(); // admissions whose answer was lost (the background does it too)
        const report = await reconcile(store);
        expect(report.drifts).toEqual([]);
        const ledger = await store.ledger(acc.id, 100_000);
        if (process.env.GG_VERBOSE)
          console.log({ admitted: out.admitted, charged: ledger.filter((e) => e.kind === 'charge') });
        // D35: one key, one hour: one charge row counting every admitted request.
        expect(ledger.filter((e) => e.kind === 'charge')).toMatchObject([
          { count: out.admitted, amount: -out.admitted },
        ]);
        expect((await store.getAccount(acc.id))?.balance).toBe(100_000 - out.admitted);
        expect(await store.usage(['key:key_fail'], DAY, DAY)).toEqual([
          { day: DAY, subject: 'key:key_fail', free: 0, billed: out.admitted, refused: 0 },
        ]);
      });
    });

    describe('an admission whose answer is lost (Redis frozen past the command timeout)', () => {
      const { env, redis } = useSharedEnv('lost', 'private');

      it('answers StoreUnavailableError and releases the admission once Redis runs it: nothing stays counted', async () => {
        const store = await env.open();
        const acc = await store.createAccount({ email: 'lost@example.org' }, T0);
        await store.credit(acc.id, 10, null, T0);
        const p = billedPlan(acc.id, 'key_lost', 1);
        redis.pause();
        const t = performance.now();
        await expect(store.admit(p)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(performance.now() - t).toBeLessThan(3_000); // the 2 s command timeout
        redis.resume(); // Redis now executes the admission nobody will get an answer for
        const deadline = performance.now() + 10_000;
        while (
          (await store.getAccount(acc.id))?.balance !== 10 ||
          (await store.ledger(acc.id, 10)).length !== 1
        ) {
          if (performance.now() > deadline) throw new Error('the lost admission was not released');
          await sleep(50);
        }
        expect(await store.listSlots('key:key_lost', 'fixed', 86_400_000, T0)).toEqual([]);
        expect(await store.usage(['key:key_lost'], DAY, DAY)).toEqual([]);
        expect((await reconcile(store)).drifts).toEqual([]);
        // The admission really ran in Redis and was then released: both events went through the drain.
        const drained = await store
          .knex('shared_drained')
          .whereIn('event_id', [`${env.prefix}adm:${p.id}`, `${env.prefix}rel:${p.id}`]);
        expect(drained).toHaveLength(2);
      });
    });

    describe('a release while Redis is down (D11)', () => {
      const { env, redis } = useSharedEnv('relfail', 'private');

      it('reports the fault, then releases the admission by itself once Redis is back', async () => {
        const store = await env.open();
        const acc = await store.createAccount({ email: 'release-down@example.org' }, T0);
        await store.credit(acc.id, 10, null, T0);
        const r = await store.admit(billedPlan(acc.id, 'key_rel', 1));
        if (!r.admitted) throw new Error('expected an admission');
        expect((await store.getAccount(acc.id))?.balance).toBe(9);
        await redis.stop();
        await expect(store.release(r.ticket)).rejects.toBeInstanceOf(StoreUnavailableError);
        await redis.start();
        const deadline = performance.now() + 10_000;
        // While Redis is still coming back, getAccount answers the drained PostgreSQL balance, which may already read
        // 10 (the charge not drained yet): wait for Redis itself, whose wallet reads 10 only after the release.
        while (!(await store.readiness()).redis || (await store.getAccount(acc.id))?.balance !== 10) {
          if (performance.now() > deadline)
            throw new Error('the release did not happen after Redis returned');
          await sleep(50);
        }
        await store.release(r.ticket); // a second release stays a no-op
        expect((await store.getAccount(acc.id))?.balance).toBe(10);
        expect((await store.ledger(acc.id, 10)).map((e) => e.kind)).toEqual(['topup']);
        expect(await store.listSlots('key:key_rel', 'fixed', 86_400_000, T0)).toEqual([]);
        expect((await reconcile(store)).drifts).toEqual([]);
      });
    });

    describe('PostgreSQL unreachable (through a TCP proxy the test cuts)', () => {
      const proxy = new TcpProxy({ host: '127.0.0.1', port: 5432 });
      afterAll(() => proxy.cut()); // before the env's cleanup, as the env's afterAll is declared after it
      const { env } = useSharedEnv('pgdown');
      beforeAll(() => proxy.listen());

      it('known keys and billed admissions keep working; the ledger catches up when PostgreSQL returns', async () => {
        const setup = await env.open();
        const acc = await setup.createAccount({ email: 'pg-down@example.org' }, T0);
        await setup.createKey({ accountId: acc.id, hash: 'h-pgdown', prefix: 'gk_abcde', kind: 'payg' }, T0);
        await setup.credit(acc.id, 50, null, T0);
        await setup.close(); // only the proxied instance drains from here on

        // The store's cache lifetime and breaker run on this clock: the test moves it instead of sleeping.
        const clock = new ManualClock(T0);
        const store = await env.open({ postgres: proxy.urlFor(env.db.url), cacheTtlMs: 50, clock });
        expect((await store.findKeyByHash('h-pgdown'))?.key.status).toBe('active');
        await proxy.cut();
        clock.advance(100); // the cache entry is past its lifetime: only the stale-if-error path can answer

        const t = performance.now();
        expect((await store.findKeyByHash('h-pgdown'))?.account.id).toBe(acc.id);
        expect(performance.now() - t).toBeLessThan(3_500);
        const fast = performance.now();
        expect((await store.findKeyByHash('h-pgdown'))?.account.id).toBe(acc.id); // breaker: no connect wait
        expect(performance.now() - fast).toBeLessThan(100);
        await expect(store.findKeyByHash('h-unknown')).rejects.toBeInstanceOf(StoreUnavailableError);

        const results = [];
        for (let i = 0; i < 20; i++) results.push(await store.admit(billedPlan(acc.id, 'key_pg', i)));
        expect(results.every((r) => r.admitted && r.billed)).toBe(true);
        await expect(store.ledger(acc.id, 100)).rejects.toBeInstanceOf(StoreUnavailableError);

        await proxy.listen();
        clock.advance(1_200); // the breaker window passes (ledger() drains before reading)
        const ledger = await store.ledger(acc.id, 100);
        expect(ledger.filter((e) => e.kind === 'charge')).toMatchObject([{ count: 20, amount: -20 }]); // D35
        expect((await store.getAccount(acc.id))?.balance).toBe(30);
        expect((await reconcile(store)).drifts).toEqual([]);
      });
    });
  },
  ['redis-server'],
);
