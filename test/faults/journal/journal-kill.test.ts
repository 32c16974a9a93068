/**
 * D34 on real processes: a child journals turns of admissions, keeps and releases and folds them into a real
 * SQLite file (one transaction with the position). It is killed with SIGKILL between turns, under load, inside a
 * fold's transaction and right after a fold's commit; a restart replays. Every keep that was written is charged
 * exactly once, every answered keep is among them, and a second replay changes nothing.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { scanFrames } from '../../../gateway/journal/frame';
import { listSegments, segmentPath } from '../../../gateway/journal/segments';
import type { AdmissionRecord } from '../../../gateway/journal/settle';

const CHILD = join(__dirname, 'journal-child.js');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gg-journal-kill-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const paths = (): { GG_DIR: string; GG_DB: string } => ({
  GG_DIR: join(dir, 'journal'),
  GG_DB: join(dir, 'store.db'),
});

/** Runs the child until `stop(line)` holds for a line it printed, then SIGKILLs it; its `kept <id>` lines. */
function runThenKill(env: Record<string, string>, stop: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...paths(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n').slice(0, -1);
      if (!child.killed && lines.some(stop)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      const lines = out.split('\n').slice(0, -1);
      const errors = lines.filter((l) => l.startsWith('error'));
      if (signal !== 'SIGKILL' || errors.length > 0) reject(new Error(`child: ${errors.join('; ')} ${err}`));
      else resolve(lines.filter((l) => l.startsWith('kept ')).map((l) => l.slice('kept '.length)));
    });
  });
}

/** Runs the child in replay mode to its end; what it printed. */
function replay(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...paths(), GG_MODE: 'replay' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`replay failed: ${out}`))));
  });
}

/** Every keep in a valid frame of the journal files (all segments are kept by the child). */
function writtenKeeps(): string[] {
  const { GG_DIR } = paths();
  const ids: string[] = [];
  for (const n of listSegments(GG_DIR, 'worker-1')) {
    const scan = scanFrames<AdmissionRecord>(readFileSync(segmentPath(GG_DIR, 'worker-1', n)));
    for (const f of scan.frames) for (const r of f.records) if (r.t === 'k') ids.push(r.id);
  }
  return ids;
}

/** The store's view: kept ids (with repeats), the charges' sums and the position. */
function storeState(): { kept: string[]; count: number; amount: number; position: number } {
  const db = new Database(paths().GG_DB, { readonly: true });
  try {
    const kept = (db.prepare('SELECT id FROM kept').pluck().all() as string[]).sort();
    const sums = db.prepare('SELECT SUM(count) AS count, SUM(amount) AS amount FROM charges').get() as {
      count: number;
      amount: number;
    };
    const position = db.prepare('SELECT seq FROM position').pluck().get() as number;
    return { kept, count: sums.count, amount: sums.amount, position };
  } finally {
    db.close();
  }
}

/** Replays and checks exactly-once: the store holds each written keep once, answered ⊆ written; replay is idempotent. */
async function expectExactlyOnce(answered: string[]): Promise<void> {
  await replay();
  const written = writtenKeeps();
  expect(new Set(written).size).toBe(written.length);
  const state = storeState();
  expect(state.kept).toEqual([...written].sort());
  expect(state.count).toBe(written.length);
  expect(state.amount).toBe(written.length * 100);
  const stored = new Set(state.kept);
  expect(answered.filter((id) => !stored.has(id))).toEqual([]);
  await replay();
  expect(storeState()).toEqual(state);
}

test('kill -9 between turns: a restart charges every written keep once, a torn tail is ignored', async () => {
  const answered = await runThenKill({ GG_PAUSE_AFTER: '400' }, (l) => l === 'paused');
  expect(answered.length).toBe(400 * 6);
  // A kill in the middle of the next write would leave a line without its newline: the replay must skip it.
  const { GG_DIR } = paths();
  const newest = listSegments(GG_DIR, 'worker-1').at(-1) ?? 1;
  appendFileSync(segmentPath(GG_DIR, 'worker-1', newest), '401 0badc0de [{"t":"k","id":"torn","acc');
  await expectExactlyOnce(answered);
  expect(storeState().kept).not.toContain('torn');
  // The next run appends after the cut tail, and its keeps count too.
  const more = await runThenKill({ GG_PAUSE_AFTER: '50' }, (l) => l === 'paused');
  await expectExactlyOnce([...answered, ...more]);
}, 60_000);

test('kill -9 under load at an arbitrary point: exactly once after the restart', async () => {
  const answered = await runThenKill({}, (l) => l.startsWith('kept ') && Number(l.split('-')[1]) > 20_000);
  expect(answered.length).toBeGreaterThan(10_000);
  await expectExactlyOnce(answered);
}, 60_000);

test.each(['before-commit', 'after-commit'])(
  'kill -9 inside a fold (%s): the replay folds what the store lacks, nothing twice',
  async (hang) => {
    const answered = await runThenKill({ GG_HANG: hang, GG_HANG_AT: '3' }, (l) => l.startsWith('fold'));
    expect(answered.length).toBeGreaterThan(0);
    const before = storeState();
    await expectExactlyOnce(answered);
    // Inside the transaction nothing of the third fold committed, so the replay must add its keeps.
    if (hang === 'before-commit') expect(storeState().kept.length).toBeGreaterThan(before.kept.length);
    else expect(before.position).toBeGreaterThan(0);
  },
  60_000,
);
