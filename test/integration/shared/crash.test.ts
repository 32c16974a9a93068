/**
 * kill -9 of an instance during billed load (issue 4, acceptance 5): a child process admits billed requests on the
 * shared store (credit leases on, the default: D33) and is killed with SIGKILL mid-load; it never keeps (settles) an
 * admission. Another instance then reconciles: no drift, the ledger's charges (hourly rows, D35) are exactly what the
 * wallet lost (D16), never more than the child admitted. Once the dead holder's lease expires and is reclaimed (ttl
 * 10 s + the background reclaim), the charges of its lease admissions, never settled, are refunded (D34: unsettled
 * means released) and the owner's admissions stay charged (no sweeper here): exact balance again, never below zero.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { reconcile } from '../../../gateway/store/shared';
import { chargedAmount, chargedRequests } from '../../helpers/ledger';
import { untilNoLease } from './crash-bounds';
import { describeShared, useSharedEnv, type SharedEnv } from './fixture';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const START = 1_000_000;

/** Run the child until it has printed `atLeast` answered admissions, then SIGKILL it; its stdout lines. */
async function runAndKill(
  env: SharedEnv,
  accountId: string,
  keyId: string,
  atLeast: number,
): Promise<string[]> {
  const child = spawn(
    process.execPath,
    [join(__dirname, 'crash-child.js'), env.db.url, env.redis, env.prefix, accountId, keyId],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GEOGATE_T0: String(T0) } },
  );
  let out = '';
  let err = '';
  let first = 0;
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (first === 0 && out.includes('\nbilled ')) first = Date.now();
    // at least `atLeast` answers and 2.5 s of load (several of the holder's flushes, 250 ms apart)
    const long = first > 0 && Date.now() - first >= 2_500;
    if (out.split('\nbilled ').length > atLeast && long && !child.killed) child.kill('SIGKILL');
  });
  await exited;
  if (!child.killed) throw new Error(`the child exited by itself: ${err}`);
  return out.split('\n').filter((l) => l.startsWith('billed ') && l.split(' ').length === 3);
}

describeShared('shared store: kill -9 of an instance during billed load', () => {
  const { env } = useSharedEnv('crash');

  it('after a SIGKILL mid-load, reconcile finds no drift and no charge is lost or doubled', async () => {
    const store = await env.open();
    expect(store.leases).not.toBeNull(); // credit leases: the default
    const acc = await store.createAccount({ email: 'crash@example.org' }, T0);
    await store.credit(acc.id, START, null, T0);
    const answered = await runAndKill(env, acc.id, 'key_crash', 400);
    expect(answered.length).toBeGreaterThanOrEqual(400);
    const answeredIds = answered.map((l) => l.split(' ')[1]);
    expect(new Set(answeredIds).size).toBe(answeredIds.length);
    const byOwner = answered.filter((l) => l.endsWith(' owner')).length;
    expect(answered.length - byOwner).toBeGreaterThan(0); // some decided from the lease, in memory

    const exact = async () => {
      const report = await reconcile(store);
      expect(report.drifts).toEqual([]);
      expect(report.pending).toBe(0);
      const ledger = await store.ledger(acc.id, 1_000_000);
      // D35: charges are hourly rows with a count (price 1: the amount is the count)
      const charges = chargedRequests(ledger);
      expect(chargedAmount(ledger)).toBe(charges);
      const balance = (await store.getAccount(acc.id))?.balance;
      expect(balance).toBe(START - charges);
      expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(balance);
      return charges;
    };
    // Right after the kill: the dead holder's lease still holds what it charged for admissions in flight (never
    // settled here). Never more than it admitted: the answered ones and at most the 8 in flight at the kill.
    const before = await exact();
    expect(before - answered.length).toBeLessThanOrEqual(8);
    expect(before).toBeGreaterThanOrEqual(byOwner);
    // Its lease expires (ttl) and this instance's background reclaim takes it back, refunding those charges.
    const ms = await untilNoLease(env.redis, env.prefix, acc.id);
    if (process.env.GG_VERBOSE) console.log({ answered: answered.length, byOwner, before, reclaimMs: ms });
    expect(ms).toBeLessThan(13_000); // ttl 10 s after its last flush + the reclaim's period (1 s), on a busy machine
    const after = await exact();
    // Only the owner's admissions stay charged: those answered and at most the 8 in flight at the kill.
    expect(after).toBeGreaterThanOrEqual(byOwner);
    expect(after - byOwner).toBeLessThanOrEqual(8);
    expect(after).toBeLessThanOrEqual(before);
  });
});
