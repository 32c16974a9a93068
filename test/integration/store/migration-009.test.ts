/**
 * Migration 009 (D35, hourly charge rows) on a ledger of per-request charge rows, on SQLite (the embedded store's
 * file) and PostgreSQL (the shared store's database, with Redis): up keeps every row as it was, the stores then write
 * hourly rows beside them and a release of a charge made before the upgrade still removes its own row; down keeps
 * every amount. `balance = sum(ledger)` holds at every step, in both directions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ManualClock, utcDay } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { hourlyChargeRef } from '../../../gateway/store/charge-hour';
import { MIGRATIONS, MIGRATIONS_TABLE, migrationSource } from '../../../gateway/store/migrations';
import { toLedger } from '../../../gateway/store/rows';
import { applyEvents } from '../../../gateway/store/shared/drain-apply';
import type { Store } from '../../../gateway/store/ports';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { describeShared, sharedEnv } from '../shared/fixture';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 10, 27, 14, 5);
const ACC = 'acc_mig9';
const opts = { migrationSource, tableName: MIGRATIONS_TABLE };
const AT_009 = MIGRATIONS.findIndex((m) => m.name === '009_hourly_ledger');

/** Migrate a fresh database to 008 and write an account with a top-up and three per-request charges (ref = plan id). */
async function ledgerBefore009(knex: Knex): Promise<void> {
  for (let i = 0; i < AT_009; i += 1) await knex.migrate.up(opts);
  await knex('accounts').insert({
    id: ACC,
    email: 'mig9@x.org',
    email_norm: 'mig9@x.org',
    status: 'active',
    balance: 1_000 - 9,
    created_at: T0 - 60_000,
  });
  const row = (id: string, amount: number, kind: string, ref: string, keyId: string | null) => ({
    id,
    account_id: ACC,
    amount,
    kind,
    key_id: keyId,
    ref,
    created_at: T0 - 50_000,
  });
  await knex('ledger').insert([
    row('led_t', 1_000, 'topup', 'pay-1', null),
    row('led_1', -3, 'charge', 'adm_old1', 'key_a'),
    row('led_2', -3, 'charge', 'adm_old2', 'key_a'),
    row('led_3', -3, 'charge', 'adm_old3', 'key_a'),
  ]);
}

/** The account's balance column and its ledger sum. */
async function balanceAndSum(knex: Knex): Promise<[number, number]> {
  const a = await knex('accounts').where({ id: ACC }).first();
  const s = await knex('ledger').where({ account_id: ACC }).sum({ s: 'amount' }).first();
  return [Number(a.balance), Number(s?.s ?? 0)];
}

/** Up: every row as it was (no count, no hour); the store's view shows a per-request charge as one request. */
async function expectUpKeepsRows(knex: Knex): Promise<void> {
  expect(await balanceAndSum(knex)).toEqual([991, 991]);
  await knex.migrate.latest(opts);
  expect(await balanceAndSum(knex)).toEqual([991, 991]);
  const rows = await knex('ledger').where({ account_id: ACC }).orderBy('seq');
  expect(rows.map((r) => [r.ref, Number(r.amount), r.count, r.hour_start])).toEqual([
    ['pay-1', 1_000, null, null],
    ['adm_old1', -3, null, null],
    ['adm_old2', -3, null, null],
    ['adm_old3', -3, null, null],
  ]);
  expect(rows.map(toLedger).map((e) => [e.kind, e.count, e.hourStart])).toEqual([
    ['topup', null, null],
    ['charge', 1, null],
    ['charge', 1, null],
    ['charge', 1, null],
  ]);
}

/** Two billed admissions through the store after the upgrade: one hourly row of count 2 beside the old rows. */
async function chargeTwice(store: Store): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const plan: AdmissionPlan = {
      id: `adm_new${i}`,
      now: T0 + i,
      day: utcDay(T0),
      slots: [],
      free: [{ id: 'key:key_a', limit: 0 }],
      overflow: { kind: 'bill', accountId: ACC, price: 5, refuse: 'no_credits' },
      usage: [],
      keyId: 'key_a',
    };
    const r = await store.admit(plan);
    if (!r.admitted) throw new Error(r.code);
    await store.keep(r.ticket);
  }
}

/** After: the old rows but the released one, the hourly row of the two new charges; balance = sum. */
async function expectAfterStore(knex: Knex): Promise<void> {
  expect(await balanceAndSum(knex)).toEqual([991 + 3 - 10, 991 + 3 - 10]);
  const charges = await knex('ledger').where({ account_id: ACC, kind: 'charge' }).orderBy('ref');
  expect(charges.map((r) => [r.ref, Number(r.amount), r.count === null ? null : Number(r.count)])).toEqual([
    ['adm_old1', -3, null],
    ['adm_old3', -3, null],
    [hourlyChargeRef('key_a', Date.UTC(2026, 10, 27, 14)), -10, 2],
  ]);
}

/**
 * Down (the migrations after 009 first, then 009): the columns go, every row and amount stays (the hourly row as one
 * charge of its total); up again.
 */
async function expectDownKeepsAmounts(knex: Knex): Promise<void> {
  for (let i = MIGRATIONS.length - 1; i >= AT_009; i -= 1) await knex.migrate.down(opts);
  expect(await knex.schema.hasColumn('ledger', 'count')).toBe(false);
  expect(await knex.schema.hasColumn('ledger', 'hour_start')).toBe(false);
  expect(await balanceAndSum(knex)).toEqual([984, 984]);
  expect(Number((await knex('ledger').where({ account_id: ACC }).count({ n: '*' }))[0]?.n)).toBe(4);
  await knex.migrate.latest(opts);
  expect(await balanceAndSum(knex)).toEqual([984, 984]);
  // The hourly row's count was lost with the column: its count reads unknown, not one request.
  const hourly = await knex('ledger').where({
    account_id: ACC,
    ref: `charge ${Date.UTC(2026, 10, 27, 14)} key_a`,
  });
  expect(hourly.map(toLedger).map((e) => [e.amount, e.count])).toEqual([[-10, null]]);
}

describe('migration 009 (hourly ledger) on SQLite', () => {
  it('keeps per-request rows, then the embedded store writes hourly rows and still releases an old charge', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gg-mig9-'));
    const file = join(dir, 'g.db');
    const sqlite = () =>
      knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true });
    try {
      let knex = sqlite();
      await ledgerBefore009(knex);
      // The release mark of an admission made before the upgrade, as the old store left it.
      await knex('admissions').insert({ plan_id: 'adm_old2', created_at: T0 - 50_000 });
      await knex.destroy();
      knex = sqlite();
      await expectUpKeepsRows(knex);
      await knex.destroy();

      const store = await createStore({ kind: 'embedded', path: file }, { clock: new ManualClock(T0) });
      await chargeTwice(store);
      // The old ticket's undo has no hour: its release deletes its own row and refunds it.
      const undo = {
        v: 1,
        day: utcDay(T0),
        counters: [],
        charge: { accountId: ACC, amount: 3 },
        slots: [],
        usage: { column: 'billed', subjects: [] },
      };
      await store.release({ planId: 'adm_old2', undo });
      await store.close();

      knex = sqlite();
      await expectAfterStore(knex);
      await expectDownKeepsAmounts(knex);
      await knex.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeShared('migration 009 (hourly ledger) on PostgreSQL', () => {
  it('keeps per-request rows, then the shared store writes hourly rows and its drain still releases an old charge', async () => {
    const env = await sharedEnv(undefined, 'mig9');
    const knex = knexFactory({ client: 'pg', connection: env.db.url });
    try {
      await ledgerBefore009(knex);
      await expectUpKeepsRows(knex);
      const store = await env.open({ clock: new ManualClock(T0) });
      await chargeTwice(store);
      await store.ledger(ACC, 10); // drained
      // A release event of a charge drained before the upgrade (no admission time): its own row goes, refunded.
      await knex.transaction((trx) =>
        applyEvents(
          trx,
          [
            {
              id: '1-0',
              ev: {
                t: 'rel',
                e: 'rel:adm_old2',
                id: 'adm_old2',
                a: ACC,
                c: '3',
                k: 'key_a',
                n: String(T0),
                d: utcDay(T0),
                u: '',
                f: '',
                b: '1',
              },
            },
          ],
          env.prefix,
        ),
      );
      await store.close();
      await expectAfterStore(knex);
      await expectDownKeepsAmounts(knex);
    } finally {
      await knex.destroy();
      await env.cleanup();
    }
  });
});
