/**
 * Model-based property test of D33's lease arithmetic with D34's journal replay: random interleavings of
 * admissions, keeps, releases, folds, idle returns, expiry, top-ups, revocations, kill -9 with replay and lost
 * hosts, checked after every step against the reference model: never over-admitted, the owners never below zero,
 * sum(ledger) = balance, free units never beyond the allowance, refusals only when the owner had nothing left.
 */
import fc from 'fast-check';
import { isDirect, leaseSize, unleased } from '../../../gateway/lease/lease';
import { comeBack, crash, lose, tick, topUp } from './faults';
import { fold, POOLS, request, returnLeases, settleReq, start, type Reference, type System } from './model';

/** Throws `what` unless `ok` (cheaper than expect() over thousands of steps). */
function must(ok: boolean, what: () => string): void {
  if (!ok) throw new Error(what());
}

/** The checks that hold after every step. */
function invariants(ref: Reference, sys: System): void {
  for (const pool of POOLS) {
    const o = sys.owners[pool];
    const c = ref.counts[pool];
    const a = unleased(o);
    must(o.leased >= 0 && a >= 0, () => `${pool}: owner granted more than it has: ${JSON.stringify(o)}`);
    must(c.used <= ref.total[pool], () => `${pool}: over-admitted, ${c.used} of ${ref.total[pool]}`);
    must(
      c.served <= ref.total[pool] + c.lost,
      () => `${pool}: served ${c.served} beyond the total and the lost`,
    );
    let parked = 0;
    for (const holder of sys.holders) {
      const l = holder.leases[pool];
      must(
        Math.min(l.left, l.inFlight, l.unposted) >= 0,
        () => `${pool}: negative lease ${JSON.stringify(l)}`,
      );
      const sum = l.left + l.inFlight + l.unposted;
      must(holder.state === 'reclaimed' || l.reserved === sum, () => `${pool}: lease ${JSON.stringify(l)}`);
      if (holder.state === 'up') parked += l.left;
      if (holder.state === 'lost') parked += l.reserved;
    }
    // Exactness: what the owner can still grant is the truth minus what holders have parked.
    const truth = ref.total[pool] - c.used - parked;
    must(a === truth, () => `${pool}: owner can grant ${a}, the reference says ${truth}`);
  }
  const sum = sys.ledger.reduce((x, y) => x + y, 0);
  must(
    sum === sys.owners.credit.available,
    () => `sum(ledger) ${sum} != balance ${sys.owners.credit.available}`,
  );
}

type Cmd = fc.Command<Reference, System>;

/** A command from a name and a step; every step is followed by the invariants. */
const cmd = (name: string, step: (ref: Reference, sys: System) => void): Cmd => ({
  check: () => true,
  run: (ref, sys) => {
    step(ref, sys);
    invariants(ref, sys);
  },
  toString: () => name,
});

const holderArb = fc.nat({ max: 3 });
const commands = [
  fc.tuple(holderArb, fc.integer({ min: 1, max: 3 })).map(([h, units]) =>
    cmd(`admit(h${h}, ${units})`, (ref, sys) => {
      const before = sys.refusals.length;
      const parkedElsewhere = (pool: 'free' | 'credit'): number =>
        sys.holders.reduce((s, x, i) => {
          if (x.state === 'lost') return s + x.leases[pool].reserved;
          return x.state === 'up' && i !== h ? s + x.leases[pool].left : s;
        }, 0);
      const remaining = POOLS.map((p) => ref.total[p] - ref.counts[p].used - parkedElsewhere(p));
      request(ref, sys, h, units);
      const refusal = sys.refusals[before];
      if (refusal === undefined) return;
      // Refused only after both owners said nothing is left for this request ...
      must(Math.max(refusal.freeHad, refusal.creditHad) < units, () => `refused while an owner had units`);
      // ... which in the reference means: all that remains is parked in other holders.
      must(Math.max(...remaining) < units, () => `refused with ${remaining.join('/')} unparked`);
    }),
  ),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, kept]) =>
    cmd(`${kept ? 'keep' : 'release'}(#${i})`, (ref, sys) => {
      const req = sys.reqs[i % Math.max(1, sys.reqs.length)];
      if (req !== undefined) settleReq(ref, sys, req, kept);
    }),
  ),
  holderArb.map((h) => cmd(`fold(h${h})`, (_ref, sys) => fold(sys, h))),
  fc.integer({ min: 1, max: 3000 }).map((ms) => cmd(`tick(${ms} ms)`, (_ref, sys) => tick(sys, ms))),
  fc.tuple(holderArb, fc.integer({ min: 1, max: 2000 })).map(([h, rate]) =>
    cmd(`rate(h${h}, ${rate}/s)`, (_ref, sys) => {
      const holder = sys.holders[h];
      if (holder !== undefined) holder.ratePerSec = rate;
    }),
  ),
  fc.integer({ min: 1, max: 50 }).map((n) => cmd(`topUp(${n})`, (ref, sys) => topUp(ref, sys, n))),
  fc.constant(
    cmd('revoke: void every lease', (_ref, sys) => sys.holders.forEach((_, h) => returnLeases(sys, h))),
  ),
  holderArb.map((h) => cmd(`kill -9 + replay(h${h})`, (ref, sys) => crash(ref, sys, h))),
  holderArb.map((h) => cmd(`lose(h${h})`, (ref, sys) => lose(ref, sys, h))),
  holderArb.map((h) => cmd(`comeBack(h${h})`, (ref, sys) => comeBack(ref, sys, h))),
];
// Admissions dominate real traffic: weight them so the owners run dry within a run.
const weighted = [
  commands[0],
  commands[0],
  commands[0],
  commands[1],
  commands[1],
  ...commands.slice(1),
].filter((c): c is fc.Arbitrary<Cmd> => c !== undefined);

test('random interleavings keep the lease arithmetic exact against the reference model', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 1, max: 4 }),
      fc.commands(weighted, { maxCommands: 120, size: 'medium' }),
      (allowance, credit, holders, cmds) => {
        const { ref, sys } = start(allowance, credit, holders);
        fc.modelRun(() => ({ model: ref, real: sys }), cmds);
        // Quiescence: settle everything, fold and return every lease, let every lost host expire.
        for (const req of [...sys.reqs]) settleReq(ref, sys, req, true);
        tick(sys, 60_000); // folds, idle returns and expiry alone must bring every unit home
        invariants(ref, sys);
        for (const pool of POOLS) {
          expect(sys.owners[pool].leased).toBe(0);
          expect(sys.owners[pool].available).toBe(ref.total[pool] - ref.counts[pool].used);
          if (sys.holders.every((x) => x.state === 'up'))
            expect(ref.counts[pool].served).toBe(ref.counts[pool].used);
        }
      },
    ),
    { numRuns: 500 },
  );
});

test("D33's examples: leases of 100 for 2 holders at 200/s each over 5,000 units, direct below 8", () => {
  expect(leaseSize(5000, 2, 200)).toBe(100);
  expect(leaseSize(2500, 4, 5)).toBe(3);
  expect(leaseSize(1_000_000, 1, 1_000_000)).toBe(1000);
  expect(leaseSize(20, 2, 1000)).toBe(5); // never more than 1/(2H) of what is left
  expect(isDirect(7, 2)).toBe(true);
  expect(isDirect(8, 2)).toBe(false);
});

test('a host back after its leases expired posts late, never below zero, and writes off the rest', () => {
  const { ref, sys } = start(0, 8, 2);
  const mine = [request(ref, sys, 0, 1), request(ref, sys, 0, 1)];
  for (const r of mine) if (r !== undefined) settleReq(ref, sys, r, true);
  lose(ref, sys, 0);
  tick(sys, 10_000); // reclaimed: the two kept units are back at the owner
  while (request(ref, sys, 1, 1) !== undefined) invariants(ref, sys);
  comeBack(ref, sys, 0);
  invariants(ref, sys);
  expect(sys.owners.credit.available).toBeGreaterThanOrEqual(0);
  expect(ref.counts.credit.lost).toBe(2); // served, never charged: D34's bound for a lost host
});
