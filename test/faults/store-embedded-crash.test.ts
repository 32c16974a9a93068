/**
 * Issue 13 item 7 (embedded store): kill -9 of a process under billed load, with crash recovery on and every
 * admission kept before it is answered. On restart past the reservation timeout the sweep releases what the killed
 * process admitted but never settled: every answered charge stays, the unanswered ones are refunded. Before the
 * sweep (a restart within the timeout) they are still charged, so the test sees the sweep do it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../gateway/core/clock';
import { createStore } from '../../gateway/store';
import { EmbeddedStore } from '../../gateway/store/embedded/store';
import { chargedAmount, chargedRequests } from '../helpers/ledger';

const T0 = Date.UTC(2026, 10, 22, 10);
const START = 1_000_000;
const TIMEOUT_MS = 60_000; // the child's reservation timeout

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gg-embedded-crash-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Run the keeping child until it printed `atLeast` answers, SIGKILL it; the plan ids it answered as billed. */
function burstThenKill(args: string[], atLeast: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(__dirname, '../integration/store/embedded-child.js'), ...args],
      {
        env: { ...process.env, GEOGATE_T0: String(T0), GEOGATE_KEEP: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').length > atLeast && !child.killed) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child ended without SIGKILL: ${err}`));
      else
        resolve(
          out
            .split('\n')
            .slice(0, -1)
            .filter((l) => l.startsWith('billed '))
            .map((l) => l.slice('billed '.length)),
        );
    });
  });
}

/** The requests charged in the ledger of `accountId` (D35: hourly rows with a count; the test prices 1 unit). */
async function charges(store: EmbeddedStore, accountId: string): Promise<number> {
  const ledger = await store.ledger(accountId, 1_000_000);
  expect(chargedAmount(ledger)).toBe(chargedRequests(ledger));
  return chargedRequests(ledger);
}

test('kill -9 under billed load: after the sweep, charges are the answered admissions (embedded)', async () => {
  const path = join(dir, 'geogate.db');
  const seed = await createStore({ kind: 'embedded', path }, { clock: new ManualClock(T0) });
  const acc = await seed.createAccount({ email: 'crash@example.org' }, T0);
  await seed.credit(acc.id, START, null, T0);
  const key = await seed.createKey(
    { accountId: acc.id, hash: 'h-crash', prefix: 'gk_crash', kind: 'payg' },
    T0,
  );
  await seed.close();

  const answered = await burstThenKill([path, acc.id, key.id, `key:${key.id}`], 2000);
  expect(answered.length).toBeGreaterThan(1000);

  const early = new EmbeddedStore(path, undefined, {
    reservationTimeoutMs: TIMEOUT_MS,
    clock: new ManualClock(T0),
  });
  await early.migrate(); // sweeps on start-up, but nothing is older than the timeout yet
  const before = await charges(early, acc.id);
  await early.close();
  expect(before).toBeGreaterThanOrEqual(answered.length);

  const clock = new ManualClock(T0 + TIMEOUT_MS + 1);
  const store = new EmbeddedStore(path, undefined, { reservationTimeoutMs: TIMEOUT_MS, clock });
  await store.migrate(); // the start-up sweep
  try {
    // D35: charges are hourly rows with a count, so the check is by count (each answered id once: the child's).
    const after = await charges(store, acc.id);
    expect(new Set(answered).size).toBe(answered.length);
    expect(after).toBeGreaterThanOrEqual(answered.length); // no answered request lost
    expect(after - answered.length).toBeLessThanOrEqual(8); // kept in the instant of the kill at most
    expect(after).toBeLessThanOrEqual(before); // the sweep only refunds
    expect(store.sweep()).toBe(0); // nothing left in flight
    expect((await store.getAccount(acc.id))?.balance).toBe(START - after);
    const usage = await store.usage([`key:${key.id}`], '2026-11-22', '2026-11-22');
    expect(usage[0]?.billed).toBe(after);
    if (process.env.GG_VERBOSE) console.log({ answered: answered.length, before, after });
  } finally {
    await store.close();
  }
}, 60_000);
