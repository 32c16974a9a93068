/**
 * Credit leases across a Redis restart that loses its data (D33, D34): a private redis-server is killed with
 * SIGKILL, its append-only files deleted, and started again empty, while one holder has charges it flushed that the
 * drain had not written to PostgreSQL yet (the drain is held back) and admissions it answered and kept but had not
 * flushed. After the restart the holder sees the new lease epoch at its next flush, the wallet is initialised from the
 * ledger, and both kinds are charged exactly once: the ledger's request count and the balance match the admissions
 * answered "admitted", less only the owner's per-request admissions whose events were lost undrained (the same loss
 * as without leases, counted here from shared_drained), and reconcile finds no drift.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { reconcile, StoreUnavailableError, type SharedStore } from '../../../gateway/store/shared';
import { LEASE_UNDO } from '../../../gateway/store/shared/lease/holder';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(120_000);

const START = 1_000_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function plan(accountId: string, keyId: string, tag: string, i: number): AdmissionPlan {
  const now = Date.now();
  return {
    id: `lr-${tag}-${i}-${randomBytes(4).toString('hex')}`,
    now,
    day: new Date(now).toISOString().slice(0, 10),
    slots: [],
    free: [{ id: `key:${keyId}`, limit: 0 }],
    overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
    usage: [`key:${keyId}`],
    keyId,
  };
}

describeShared(
  'shared store: credit leases across a Redis restart that loses its data',
  () => {
    const { env, redis } = useSharedEnv('lrestart', 'private');

    it('charges what the holder flushed undrained and what it kept unflushed exactly once', async () => {
      // The drain is held back (one pass a minute), so the holder's flushed charge events wait in the stream and are
      // lost with it; the test drains explicitly where it needs PostgreSQL up to date.
      const store: SharedStore = await env.open({ drainIntervalMs: 60_000 });
      const holder = store.leases!;
      const acc = await store.createAccount(
        { email: `lr${randomBytes(4).toString('hex')}@example.org` },
        Date.now(),
      );
      await store.credit(acc.id, START, null, Date.now());
      const keyId = `lrk${randomBytes(3).toString('hex')}`;
      let admitted = 0;
      let i = 0;
      /** Owner (per-request script) admissions of the phase before the kill: their events may be lost undrained. */
      const ownerBeforeKill: string[] = [];
      let beforeKill = true;
      const round = async (n: number) => {
        await Promise.all(
          Array.from({ length: n }, async () => {
            const p = plan(acc.id, keyId, beforeKill ? 'a' : 'b', i++);
            let r;
            try {
              r = await store.admit(p);
            } catch (err) {
              if (err instanceof StoreUnavailableError) return; // Redis coming back: not admitted
              throw err;
            }
            if (!r.admitted) throw new Error(`refused: ${r.code}`);
            admitted += 1;
            if (beforeKill && r.ticket.undo !== LEASE_UNDO) ownerBeforeKill.push(p.id);
            await store.keep(r.ticket);
          }),
        );
      };

      // Warm-up: the first admissions go to the owner (wallet, view, first grants); drained to PostgreSQL.
      for (let k = 0; k < 10; k++) {
        await round(20);
        await sleep(20);
      }
      await holder.flush();
      await store.drain.flush();
      const warm = admitted;
      ownerBeforeKill.length = 0;

      // Lease traffic with flushes in between (their events stay undrained), then one last round kept, not flushed.
      for (let k = 0; k < 30; k++) {
        await round(50);
        await sleep(15);
      }
      await sleep(300); // at least one flush of what came before
      await round(200);
      // a round whose admissions all came from the lease ends with them kept and not flushed (a round that went to
      // the owner yields to the flush timer): a few more rounds until one did
      for (let k = 0; k < 40 && holder.owed(acc.id) === 0; k++) await round(50);
      const unflushed = holder.owed(acc.id);
      expect(unflushed).toBeGreaterThan(0); // admissions answered and kept that no flush carried yet
      const pendingEvents = await store.redis.xlen(store.layout.stream(store.layout.accountShard(acc.id)));
      expect(pendingEvents).toBeGreaterThan(0); // charges flushed to Redis, not drained
      const admittedBeforeKill = admitted;

      await redis.stop();
      rmSync(join(redis.dir, 'appendonlydir'), { recursive: true, force: true });
      await redis.start(); // empty: no wallet, no lease, no stream, no epoch
      expect(await store.redis.exists(store.layout.wallet(acc.id)).catch(() => 0)).toBe(0);
      beforeKill = false;

      // Traffic again until Redis is usable (the counters' rebuild runs on readiness) and the holder flushed.
      const deadline = performance.now() + 30_000;
      while (holder.stats.recoveries === 0 || admitted < admittedBeforeKill + 500) {
        if (performance.now() > deadline) throw new Error('no recovery within 30 s');
        await store.readiness();
        await round(50);
        await sleep(20);
      }

      await holder.flush();
      await store.drain.flush();
      const drainedOwner = await store
        .knex('shared_drained')
        .whereIn(
          'event_id',
          ownerBeforeKill.map((id) => `${env.prefix}adm:${id}`),
        )
        .count({ n: '*' })
        .first();
      const lostOwner = ownerBeforeKill.length - Number(drainedOwner?.n ?? 0);
      const ledger = await store.ledger(acc.id, 100_000);
      const charged = ledger.filter((e) => e.kind === 'charge').reduce((a, e) => a + (e.count ?? 0), 0);
      const amount = ledger.filter((e) => e.kind === 'charge').reduce((a, e) => a + e.amount, 0);
      if (process.env.GG_VERBOSE) {
        console.log({
          warm,
          admittedBeforeKill,
          unflushed,
          pendingEvents,
          admitted,
          charged,
          lostOwner,
          stats: holder.stats,
        });
      }

      expect(holder.stats.recoveries).toBeGreaterThanOrEqual(1);
      expect(holder.stats.recharged).toBeGreaterThan(0); // the flushed, undrained lease charges were charged again
      expect(charged).toBe(admitted - lostOwner);
      expect(amount).toBe(-(admitted - lostOwner));
      expect((await store.getAccount(acc.id))?.balance).toBe(START - (admitted - lostOwner));
      expect((await reconcile(store)).drifts).toEqual([]);
    });
  },
  ['redis-server'],
);
