/**
 * The memory owner beside another writer of its file (the CLI opens the store directly): another connection's
 * commits are seen through PRAGMA data_version on the next turn, and a fold never takes a balance below zero (an
 * outside write that lowered it under what the owner kept is written off and counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../../gateway/core/clock';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import type { AdmissionPlan } from '../../../gateway/store/types';

const T0 = Date.UTC(2026, 10, 22, 10);
const nextTurn = () => new Promise((r) => setImmediate(r));

let dir: string;
let owner: EmbeddedStore;
let other: Database.Database;
let accountId: string;
let n = 0;

const billed = (price: number): AdmissionPlan => ({
  id: `o${(n += 1)}`,
  now: T0,
  day: '2026-11-22',
  slots: [],
  free: [{ id: 'key:o', limit: 0 }], // no allowance: every request is billed
  overflow: { kind: 'bill', accountId, price, refuse: 'no_credits' },
  usage: [],
  keyId: 'key_o',
});

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gg-owner-outside-'));
  const path = join(dir, 'g.db');
  owner = new EmbeddedStore(path, undefined, {
    admission: 'memory',
    foldEveryMs: 3_600_000,
    backgroundCheckpoints: false,
    clock: new ManualClock(T0),
  });
  await owner.migrate();
  accountId = (await owner.createAccount({ email: 'o@example.org' }, T0)).id;
  await owner.credit(accountId, 5, null, T0);
  other = new Database(path);
  other.pragma('busy_timeout = 5000');
});

afterEach(async () => {
  other.close();
  await owner.close();
  rmSync(dir, { recursive: true, force: true });
});

test("sees another connection's top-up on the next turn", async () => {
  expect(await owner.admit(billed(5))).toMatchObject({ admitted: true });
  expect(await owner.admit(billed(5))).toMatchObject({ admitted: false, code: 'no_credits' });
  other.prepare('UPDATE accounts SET balance = balance + 10 WHERE id = ?').run(accountId);
  await nextTurn();
  expect(await owner.admit(billed(5))).toMatchObject({ admitted: true, charged: 5 });
});

test('a fold never takes the balance below zero: what an outside write took first is written off', async () => {
  const r = await owner.admit(billed(4));
  if (!r.admitted) throw new Error('expected an admission');
  await owner.keep(r.ticket);
  // Another process takes 3 of the 5 before the owner folds its kept 4.
  other.prepare('UPDATE accounts SET balance = balance - 3 WHERE id = ?').run(accountId);
  await owner.foldNow();
  const balance = (await owner.getAccount(accountId))?.balance;
  expect(balance).toBe(0);
  expect(owner.memoryOwner()?.writtenOff).toBe(2);
  const charges = (await owner.ledger(accountId, 10)).filter((e) => e.kind === 'charge');
  expect(charges.reduce((s, e) => s - e.amount, 0)).toBe(2);
  await nextTurn();
  expect(await owner.admit(billed(1))).toMatchObject({ admitted: false, code: 'no_credits' });
});
