/**
 * The embedded and the shared store agree (STYLE.md: "embedded and Redis stores agree"): random sequences of
 * admissions (slots in fixed and sliding mode, free counters, billing, refusals), releases, credits and clock moves
 * (across 24 h windows and UTC midnight) give the same answers and the same observable state on both, on one Redis
 * and on a three-node Redis Cluster (where cross-shard plans take the reserve-then-compensate path).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { utcDay } from '../../../gateway/core/clock';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import type { AdmissionPlan, AdmissionResult, Ticket } from '../../../gateway/store/types';
import type { Store } from '../../../gateway/store/ports';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(180_000);

const T0 = Date.UTC(2026, 10, 22, 20);
const HOUR = 3_600_000;

type Op =
  | {
      op: 'admit';
      shape: 'A' | 'B';
      key: number;
      net: number;
      member: number;
      mode: 'fixed' | 'sliding';
      price: number;
    }
  | { op: 'release'; pick: number }
  | { op: 'credit'; amount: number }
  | { op: 'advance'; hours: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('admit' as const),
      shape: fc.constantFrom('A' as const, 'B' as const),
      key: fc.integer({ min: 0, max: 1 }),
      net: fc.integer({ min: 0, max: 1 }),
      member: fc.integer({ min: 0, max: 3 }),
      mode: fc.constantFrom('fixed' as const, 'sliding' as const),
      price: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 6 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 30 }) }),
  },
);

/** The answer without the store-private ticket. */
function answer(r: AdmissionResult): unknown {
  if (!r.admitted) return r;
  return { admitted: true, billed: r.billed, charged: r.charged, quota: r.quota };
}

/** One side: a store and the account it made for this run. */
interface Side {
  store: Store;
  accountId: string;
  live: Ticket[];
}

let run = 0;

async function agree(embedded: Store, shared: Store, ops: Op[], limit: number): Promise<void> {
  run += 1;
  const tag = `${Date.now().toString(36)}r${run}`;
  const sides: Side[] = [];
  for (const store of [embedded, shared]) {
    const a = await store.createAccount({ email: `agree-${tag}@example.org` }, T0);
    await store.credit(a.id, 3, null, T0);
    sides.push({ store, accountId: a.id, live: [] });
  }
  let now = T0;
  let seq = 0;
  const scope = (k: number, mode: string) => `key:${tag}k${k}${mode}`;
  const mkPlan = (o: Extract<Op, { op: 'admit' }>, accountId: string): AdmissionPlan =>
    o.shape === 'A' ? planA(o, accountId) : planB(o, accountId);
  // Rule set B's shape: the key's slots, the account's address set, counter and wallet (D9, D13).
  const planB = (o: Extract<Op, { op: 'admit' }>, accountId: string): AdmissionPlan => ({
    id: `${tag}p${seq}`,
    now,
    day: utcDay(now),
    slots: [
      {
        scope: scope(o.key, 'sliding'),
        member: `198.51.100.${o.member}`,
        capacity: 2,
        mode: 'sliding',
        windowMs: 24 * HOUR,
        refuse: 'key_ip_limit',
      },
      {
        scope: `account:${accountId}`,
        member: `198.51.100.${o.member}`,
        capacity: 2,
        mode: 'sliding',
        windowMs: 24 * HOUR,
        refuse: 'account_ip_limit',
      },
    ],
    free: [{ id: `account:${accountId}`, limit }],
    overflow:
      o.net === 0 ? { kind: 'bill', accountId, price: o.price, refuse: 'quota_exceeded' } : { kind: 'free' },
    usage: [`key:${tag}k${o.key}`, `account:${accountId}`],
    keyId: `${tag}k${o.key}`,
  });
  const planA = (o: Extract<Op, { op: 'admit' }>, accountId: string): AdmissionPlan => ({
    id: `${tag}p${seq}`,
    now,
    day: utcDay(now),
    slots: [
      {
        scope: scope(o.key, o.mode),
        member: `198.51.100.${o.member}`,
        capacity: 2,
        mode: o.mode,
        windowMs: 24 * HOUR,
        refuse: 'key_ip_limit',
      },
    ],
    // As in rule set A, the key's slot set and its counter are one entity ("key:…"), so one shard.
    free: [
      { id: scope(o.key, o.mode), limit },
      { id: `network:${tag}n${o.net}`, limit: limit + 1 },
    ],
    overflow:
      o.key === 0
        ? { kind: 'bill', accountId, price: o.price, refuse: 'no_credits' }
        : { kind: 'refuse', code: 'quota_exceeded' },
    usage: [scope(o.key, o.mode)],
    keyId: `${tag}k${o.key}`,
  });
  for (const o of ops) {
    seq += 1;
    const outcomes: unknown[] = [];
    for (const side of sides) {
      if (o.op === 'admit') {
        const r = await side.store.admit(mkPlan(o, side.accountId));
        if (r.admitted) side.live.push(r.ticket);
        outcomes.push(answer(r));
      } else if (o.op === 'release') {
        const [t] = side.live.splice(o.pick % Math.max(1, side.live.length), 1);
        if (t) await side.store.release(t);
      } else if (o.op === 'credit') {
        outcomes.push((await side.store.credit(side.accountId, o.amount, null, now)).balance);
      }
    }
    if (o.op === 'advance') now += o.hours * HOUR;
    expect(outcomes[1]).toEqual(outcomes[0]);
  }
  const observe = async (side: Side) => ({
    balance: (await side.store.getAccount(side.accountId))?.balance,
    // D35: charge rows are per (key, hour) with a count, the same in both stores; the order rows were opened in
    // differs (the shared store's drain opens a batch's rows at once), so the rows are compared sorted.
    ledger: (await side.store.ledger(side.accountId, 1000))
      .map((e) => [e.kind, e.amount, e.kind === 'charge' ? e.ref : null, e.count, e.hourStart])
      .sort(),
    usage: await side.store.usage(
      [0, 1].flatMap((k) => [`key:${tag}k${k}`, scope(k, 'fixed'), scope(k, 'sliding')]),
      '2026-01-01',
      '2027-12-31',
    ),
    slots: await Promise.all(
      [0, 1].flatMap((k) =>
        (['fixed', 'sliding'] as const).map((m) => side.store.listSlots(scope(k, m), m, 24 * HOUR, now)),
      ),
    ),
    accountSlots: await side.store.listSlots(`account:${side.accountId}`, 'sliding', 24 * HOUR, now),
  });
  const [a, b] = [await observe(sides[0] as Side), await observe(sides[1] as Side)];
  expect(b).toEqual(a);
}

function agreementRules(getShared: () => Store): void {
  let dir: string;
  let embedded: EmbeddedStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gg-agree-'));
    embedded = new EmbeddedStore(join(dir, 'agree.db'));
    await embedded.migrate();
  });
  afterAll(async () => {
    await embedded?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('random admits, releases, credits and clock moves: same answers and same state (D5, D10, D11, D13, D16)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 3 }),
        (ops, limit) => agree(embedded, getShared(), ops, limit),
      ),
      { numRuns: 100 },
    );
  });
}

describeShared(
  'embedded and shared stores agree',
  () => {
    describe('one Redis', () => {
      const { env } = useSharedEnv('agree');
      let shared: Store;
      beforeAll(async () => {
        shared = await env.open();
      });
      agreementRules(() => shared);
    });

    describe('three-node Redis Cluster', () => {
      const { env } = useSharedEnv('agree', 'cluster');
      let shared: Store;
      beforeAll(async () => {
        shared = await env.open();
      });
      agreementRules(() => shared);
    });
  },
  ['redis-server', 'redis-cli'],
);
