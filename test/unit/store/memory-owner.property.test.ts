/**
 * Model-based property test (fast-check) of the embedded store whose admission is decided in memory (D33 owner,
 * D34 journal and fold, D35 hourly charges), on a real SQLite file: random interleavings of admissions (free,
 * billed, refused; plans of several units; a slot set), keeps, releases, top-ups, folds and crashes (the process
 * state abandoned as kill -9 leaves it, the store opened again: the journal's tail is folded) against a simple
 * reference model of the rules. Checked after every step: each decision is the model's (so a refusal comes only
 * when nothing was left), never more free units than the allowance, the slot set never above its capacity, the
 * balance never negative and equal to the model's, and sum(ledger) = the folded balance; after a crash, kept means
 * charged and in flight means released.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ManualClock, utcDay } from '../../../gateway/core/clock';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import type { AdmissionPlan, Ticket } from '../../../gateway/store/types';

const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = utcDay(T0);
const CAPACITY = 2;
const WINDOW = 86_400_000;

type Op =
  | { op: 'admit'; member: number; units: number }
  | { op: 'keep'; pick: number }
  | { op: 'release'; pick: number }
  | { op: 'topup'; amount: number }
  | { op: 'fold' }
  | { op: 'crash' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('admit' as const),
      member: fc.nat(3),
      units: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('keep' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('topup' as const), amount: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fold' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('crash' as const) }) },
);

/** The model's slot entry. */
interface Entry {
  first: number;
  last: number;
}
type Change =
  | { op: 'add'; member: string; at: number }
  | { op: 'touch'; member: string; at: number; prev: number; first: number };

/** An admission the model holds: what it reserved. */
interface Held {
  ticket: Ticket;
  free: number;
  charge: number;
  change: Change;
  /** Admitted by a process that crashed since: its tickets settle nothing. */
  dead: boolean;
}

/** The reference model: the rules, with kept (durable) and in-flight parts apart. */
class Model {
  balance: number; // credits − kept charges (durable)
  reserved = 0; // charges in flight
  keptFree = 0;
  inflightFree = 0;
  live = new Map<string, Entry>(); // the slot set as decided (kept and in flight)
  durable = new Map<string, Entry>(); // what kept slot writes left (MAX of both times)
  constructor(
    start: number,
    readonly limit: number,
    readonly price: number,
  ) {
    this.balance = start;
  }

  /** The decision for `units` units from `member` at `now`: a refusal code, or what it reserves. */
  decide(
    member: string,
    units: number,
    now: number,
  ): { code: string } | { free: number; charge: number; change: Change } {
    let liveCount = 0;
    let mine: Entry | undefined;
    for (const [m, e] of this.live)
      if (e.first + WINDOW > now) {
        liveCount += 1;
        if (m === member) mine = e;
      }
    let change: Change;
    if (mine)
      change = { op: 'touch', member, at: Math.max(now, mine.last), prev: mine.last, first: mine.first };
    else if (liveCount < CAPACITY) change = { op: 'add', member, at: now };
    else return { code: 'key_ip_limit' };
    const free = Math.min(units, Math.max(0, this.limit - this.keptFree - this.inflightFree));
    const charge = (units - free) * this.price;
    if (charge > this.balance - this.reserved) return { code: 'no_credits' };
    return { free, charge, change };
  }

  apply(c: Change): void {
    const e = this.live.get(c.member);
    if (c.op === 'add') this.live.set(c.member, { first: c.at, last: c.at });
    else if (e) e.last = Math.max(e.last, c.at);
  }

  undo(c: Change): void {
    const e = this.live.get(c.member);
    if (!e) return;
    if (c.op === 'add') {
      if (e.first === c.at && e.last === c.at) this.live.delete(c.member);
    } else if (e.last === c.at) e.last = c.prev;
  }

  keepSlot(c: Change): void {
    const first = c.op === 'add' ? c.at : c.first;
    const e = this.durable.get(c.member);
    if (!e) this.durable.set(c.member, { first, last: c.at });
    else {
      e.first = Math.max(e.first, first);
      e.last = Math.max(e.last, c.at);
    }
  }

  /** kill -9: what was in flight is gone; the slot set is what kept writes left. */
  crash(): void {
    this.reserved = 0;
    this.inflightFree = 0;
    this.live = new Map([...this.durable].map(([m, e]) => [m, { ...e }]));
  }
}

/** A store on `path`, decided in memory, its own folds only (no timer interferes with the steps). */
async function open(path: string, clock: ManualClock): Promise<EmbeddedStore> {
  const store = new EmbeddedStore(path, undefined, {
    admission: 'memory',
    foldEveryMs: 3_600_000,
    backgroundCheckpoints: false,
    clock,
  });
  await store.migrate();
  return store;
}

test('decisions, keeps, releases, top-ups, folds and crashes with replay agree with the model; money stays exact', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 8 }),
      async (ops, limit, price, start) => {
        const dir = mkdtempSync(join(tmpdir(), 'gg-owner-prop-'));
        const path = join(dir, 'geogate.db');
        const clock = new ManualClock(T0);
        let store = await open(path, clock);
        try {
          const acc = await store.createAccount({ email: 'p@example.org' }, T0);
          if (start > 0) await store.credit(acc.id, start, null, T0);
          const scope = 'key:prop';
          const model = new Model(start, limit, price);
          const held: Held[] = [];
          let step = 0;
          let plans = 0;
          for (const o of ops) {
            step += 1;
            const now = T0 + step * 1000;
            if (o.op === 'admit') {
              const member = `198.51.100.${o.member}`;
              const plan: AdmissionPlan = {
                id: `p${(plans += 1)}`,
                now,
                day: DAY,
                slots: [
                  {
                    scope,
                    member,
                    capacity: CAPACITY,
                    mode: 'fixed',
                    windowMs: WINDOW,
                    refuse: 'key_ip_limit',
                  },
                ],
                free: [{ id: 'key:prop', limit }],
                overflow: { kind: 'bill', accountId: acc.id, price, refuse: 'no_credits' },
                usage: ['key:prop'],
                keyId: 'key_prop',
                ...(o.units > 1 ? { units: o.units } : {}),
              };
              const want = model.decide(member, o.units, now);
              const got = await store.admit(plan);
              if ('code' in want) expect(got).toMatchObject({ admitted: false, code: want.code });
              else {
                expect(got).toMatchObject({ admitted: true, charged: want.charge, billed: want.charge > 0 });
                if (!got.admitted) throw new Error('unreachable');
                model.apply(want.change);
                model.reserved += want.charge;
                model.inflightFree += want.free;
                held.push({
                  ticket: got.ticket,
                  free: want.free,
                  charge: want.charge,
                  change: want.change,
                  dead: false,
                });
              }
            } else if (o.op === 'keep' || o.op === 'release') {
              const [h] = held.splice(o.pick % Math.max(1, held.length), 1);
              if (h) {
                if (o.op === 'keep') await store.keep(h.ticket);
                else await store.release(h.ticket);
                if (!h.dead) {
                  model.reserved -= h.charge;
                  model.inflightFree -= h.free;
                  if (o.op === 'keep') {
                    model.balance -= h.charge;
                    model.keptFree += h.free;
                    model.keepSlot(h.change);
                  } else model.undo(h.change);
                }
              }
            } else if (o.op === 'topup') {
              await store.credit(acc.id, o.amount, null, now);
              model.balance += o.amount;
            } else if (o.op === 'fold') {
              await store.foldNow();
            } else {
              await store.abandon(); // kill -9: nothing more is written or folded
              store = await open(path, clock); // the restart folds the journal's tail
              model.crash();
              for (const h of held) h.dead = true;
            }
            // Checked after every step, through the store's ports (they fold first).
            const balance = (await store.getAccount(acc.id))?.balance ?? NaN;
            expect(balance).toBeGreaterThanOrEqual(0);
            expect(balance).toBe(model.balance - model.reserved);
            const ledger = await store.ledger(acc.id, 1000);
            expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(model.balance); // sum(ledger) = folded balance
            const [usage] = await store.usage(['key:prop'], DAY, DAY);
            expect(usage?.free ?? 0).toBe(model.keptFree + model.inflightFree);
            expect(usage?.free ?? 0).toBeLessThanOrEqual(limit); // free never beyond the allowance
            const slots = await store.listSlots(scope, 'fixed', WINDOW, now);
            expect(slots.length).toBeLessThanOrEqual(CAPACITY);
            expect(slots.map((s) => s.member).sort()).toEqual(
              [...model.live]
                .filter(([, e]) => e.first + WINDOW > now)
                .map(([m]) => m)
                .sort(),
            );
          }
        } finally {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    ),
    { numRuns: 60 },
  );
}, 120_000);
