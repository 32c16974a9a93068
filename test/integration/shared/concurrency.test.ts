/**
 * Concurrency across instances (issue 4, acceptance 4, store part): with a balance worth exactly N billed requests
 * and 20×N concurrent admissions spread over two store instances, exactly N are billed (plus the F free ones), the
 * balance ends at zero, the ledger holds exactly N charges, and reconcile finds no drift (D10, D16). Runs on one
 * Redis and on a three-node Redis Cluster (where the plan's key, network and account sit in three different shards,
 * so the reserve-then-compensate path is the one exercised).
 */
import { randomBytes } from 'node:crypto';
import { shardOf } from '../../../gateway/store/shared/layout';
import { reconcile, type SharedStore } from '../../../gateway/store/shared';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { describeShared, useSharedEnv, type SharedEnv } from './fixture';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = '2026-11-22';

/** An id `base…` whose shard differs from every shard in `taken`. */
function idInNewShard(base: string, taken: number[]): string {
  for (;;) {
    const id = `${base}${randomBytes(3).toString('hex')}`;
    if (!taken.includes(shardOf(id))) return id;
  }
}

async function run(env: SharedEnv, n: number, free: number): Promise<void> {
  const [a, b] = [await env.open(), await env.open()];
  const acc = await a.createAccount({ email: `c${randomBytes(4).toString('hex')}@example.org` }, T0);
  await a.credit(acc.id, n, null, T0);
  const accShard = shardOf(`account:${acc.id}`);
  const keyId = idInNewShard('key:', [accShard]).slice(4);
  const network = idInNewShard('network:', [accShard, shardOf(`key:${keyId}`)]);
  const plan = (i: number): AdmissionPlan => ({
    id: `conc-${i}-${randomBytes(4).toString('hex')}`,
    now: T0,
    day: DAY,
    slots: [
      {
        scope: `key:${keyId}`,
        member: `198.51.100.${i % 2}`,
        capacity: 2,
        mode: 'fixed',
        windowMs: 86_400_000,
        refuse: 'key_ip_limit',
      },
    ],
    free: [
      { id: `key:${keyId}`, limit: free },
      { id: network, limit: free },
    ],
    overflow: { kind: 'bill', accountId: acc.id, price: 1, refuse: 'no_credits' },
    usage: [`key:${keyId}`, `account:${acc.id}`],
    keyId,
  });
  const total = 20 * n;
  const results = await Promise.all(
    Array.from({ length: total }, (_, i) => ((i % 2 === 0 ? a : b) as SharedStore).admit(plan(i))),
  );
  const billed = results.filter((r) => r.admitted && r.billed).length;
  const freeAdmitted = results.filter((r) => r.admitted && !r.billed).length;
  const refused = results.filter((r) => !r.admitted);
  expect(billed).toBe(n);
  expect(freeAdmitted).toBe(free);
  expect(new Set(refused.map((r) => (r.admitted ? 'x' : r.code)))).toEqual(new Set(['no_credits']));
  expect((await a.getAccount(acc.id))?.balance).toBe(0);
  expect((await b.getAccount(acc.id))?.balance).toBe(0);
  const ledger = await b.ledger(acc.id, 10_000);
  // D35: the n charges (one key, one hour) are one hourly row of n requests.
  expect(ledger.filter((e) => e.kind === 'charge')).toMatchObject([{ keyId, count: n, amount: -n }]);
  expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(0);
  expect(await a.usage([`key:${keyId}`], DAY, DAY)).toEqual([
    { day: DAY, subject: `key:${keyId}`, free, billed: n, refused: 0 },
  ]);
  const report = await reconcile(a);
  expect(report.drifts).toEqual([]);
  expect(report.pending).toBe(0);
}

describeShared(
  'shared store: concurrent admissions across two instances',
  () => {
    describe('one Redis', () => {
      const { env } = useSharedEnv('conc');

      it('balance worth N=10, 20×N concurrent billed requests over two instances: exactly N billed (D16)', async () => {
        await run(env, 10, 0);
      });
      it('with a free allowance of 3 first: exactly 3 free and N=15 billed out of 300 (D5, D10)', async () => {
        await run(env, 15, 3);
      });
    });

    describe('three-node Redis Cluster (reserve-then-compensate across shards)', () => {
      const { env } = useSharedEnv('conc', 'cluster');

      it('balance worth N=10, 20×N concurrent billed requests over two instances: exactly N billed (D16)', async () => {
        await run(env, 10, 0);
      });
      it('with a free allowance of 3 first: exactly 3 free and N=15 billed out of 300 (D5, D10)', async () => {
        await run(env, 15, 3);
      });
    });
  },
  ['redis-server', 'redis-cli'],
);
