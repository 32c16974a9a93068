/**
 * The journal on real files (D34): one frame per turn, one shared promise per turn, fold with the position,
 * replay after the store's position, torn tails, empty files, rotation and pruning, failed folds, bounded memory.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanFrames } from '../../../gateway/journal/frame';
import { Journal } from '../../../gateway/journal/journal';
import type { JournalOptions } from '../../../gateway/journal/options';
import { listSegments, segmentPath } from '../../../gateway/journal/segments';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gg-journal-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A store stand-in that keeps what was folded and its position, applying a batch only when `after` matches. */
function store(position = 0): {
  folded: number[];
  position: number;
  calls: { size: number; position: number }[];
  fold: JournalOptions<number>['fold'];
} {
  const s = {
    folded: [] as number[],
    position,
    calls: [] as { size: number; position: number }[],
    fold: (records: number[], pos: number, after: number): void => {
      if (after !== s.position) return;
      s.folded.push(...records);
      s.position = pos;
      s.calls.push({ size: records.length, position: pos });
    },
  };
  return s;
}

const open = (
  s: ReturnType<typeof store>,
  more: Partial<JournalOptions<number>> = {},
): Promise<Journal<number>> =>
  Journal.open<number>({
    dir,
    name: 'w1',
    foldedPosition: s.position,
    fold: s.fold,
    foldEveryMs: 60_000,
    ...more,
  });

const lines = (n = 1): string[] =>
  readFileSync(segmentPath(dir, 'w1', n), 'utf8')
    .split('\n')
    .filter((l) => l !== '');

test('an empty folder opens at position 0 and folds nothing', async () => {
  const s = store();
  const j = await open(s);
  expect(j.position).toBe(0);
  await j.close();
  expect(s.calls).toEqual([]);
});

test('the records of one turn are one line, and its appenders share one promise', async () => {
  const s = store();
  const j = await open(s);
  j.append(1);
  const p = j.written();
  j.append(2);
  expect(j.written()).toBe(p);
  await p;
  expect(lines()).toHaveLength(1);
  j.append(3);
  await j.written();
  expect(lines()).toHaveLength(2);
  expect(j.position).toBe(2);
  await j.close();
  expect(s.folded).toEqual([1, 2, 3]);
  expect(s.position).toBe(2);
});

test('without autoFlush nothing is written until flush(), which writes once', async () => {
  const j = await open(store(), { autoFlush: false });
  j.append(1);
  j.append(2);
  await turn();
  expect(lines()).toHaveLength(0);
  j.flush();
  j.flush();
  expect(lines()).toHaveLength(1);
  await j.close();
});

test('each fold hands over only the records since the last one, with their position', async () => {
  const s = store();
  const j = await open(s);
  j.append(1);
  await j.written();
  await j.foldNow();
  j.append(2);
  j.append(3);
  await j.written();
  await j.foldNow();
  expect(s.calls).toEqual([
    { size: 1, position: 1 },
    { size: 2, position: 2 },
  ]);
  await j.close();
});

test('the timer folds every foldEveryMs', async () => {
  const s = store();
  const j = await open(s, { foldEveryMs: 10 });
  j.append(7);
  for (let i = 0; i < 500 && s.position === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(s.folded).toEqual([7]);
  await j.close();
});

test('a restart folds again exactly the turns after the store position, in bounded batches', async () => {
  const first = store();
  const j = await open(first, { autoFlush: false });
  for (let t = 1; t <= 10; t++) {
    j.append(t * 10);
    j.append(t * 10 + 1);
    j.flush();
    if (t === 4) await j.foldNow();
  }
  // Killed without a fold: the store has turns 1..4.
  expect(first.position).toBe(4);
  const again = await open(first, { maxBatch: 5 });
  expect(first.folded).toEqual(Array.from({ length: 10 }, (_, i) => [(i + 1) * 10, (i + 1) * 10 + 1]).flat());
  expect(first.calls.slice(1).map((c) => c.position)).toEqual([7, 10]);
  expect(again.position).toBe(10);
  await again.close();
});

test('a power loss drops the unsynced tail: the replay folds the whole turns left, once, and goes on', async () => {
  const s = store();
  const j = await open(s, { autoFlush: false });
  for (let t = 1; t <= 6; t++) {
    j.append(t);
    j.flush();
    if (t === 2) await j.foldNow(); // synced and folded up to turn 2
  }
  // The page cache lost turns 5 and 6 and half of turn 4 (a fold only ever covers synced turns).
  const path = segmentPath(dir, 'w1', 1);
  const bytes = readFileSync(path);
  const ends = scanFrames(bytes).frames.map((f) => f.end);
  writeFileSync(path, bytes.subarray(0, (ends[2] ?? 0) + 5));
  const again = await open(s);
  expect(s.folded).toEqual([1, 2, 3]);
  again.append(40);
  await again.written();
  await again.close();
  expect(s.folded).toEqual([1, 2, 3, 40]);
  expect(s.position).toBe(4);
});

test('a torn last line is cut on open, and the next turn is written on a clean line', async () => {
  const s = store();
  const j = await open(s);
  j.append(1);
  await j.written();
  await j.close();
  appendFileSync(segmentPath(dir, 'w1', 1), '2 0000abcd [5,6');
  const again = await open(s);
  again.append(2);
  await again.written();
  const scan = scanFrames(readFileSync(segmentPath(dir, 'w1', 1)));
  expect(scan.torn).toBe('none');
  expect(scan.frames.map((f) => f.records)).toEqual([[1], [2]]);
  await again.close();
  expect(s.folded).toEqual([1, 2]);
});

test('an empty segment file and a store ahead of the files are accepted', async () => {
  writeFileSync(segmentPath(dir, 'w1', 3), '');
  const s = store(41);
  const j = await open(s);
  expect(j.position).toBe(41);
  j.append(1);
  await j.written();
  await j.close();
  expect(s.calls).toEqual([{ size: 1, position: 42 }]);
});

test('segments rotate past segmentBytes; folded ones are deleted, or kept up to keepFolded', async () => {
  for (const keepFolded of [0, 2]) {
    rmSync(dir, { recursive: true, force: true });
    const s = store();
    const j = await open(s, { segmentBytes: 64, keepFolded, autoFlush: false });
    for (let t = 0; t < 20; t++) {
      j.append(t);
      j.append(1_000_000 + t);
      j.flush();
    }
    expect(listSegments(dir, 'w1').length).toBeGreaterThan(5);
    await j.foldNow();
    expect(listSegments(dir, 'w1')).toHaveLength(keepFolded + 1);
    await j.close();
    expect(s.folded).toHaveLength(40);
    const reopened = store(s.position);
    await (await open(reopened)).close();
    expect(reopened.calls).toEqual([]);
  }
});

test('a damaged older segment stops the open with an error naming it', async () => {
  const j = await open(store(), { segmentBytes: 16, autoFlush: false });
  for (let t = 0; t < 3; t++) {
    j.append(t);
    j.flush();
  }
  await j.close();
  // The close folded and deleted the closed segments; an older one reappears damaged.
  writeFileSync(segmentPath(dir, 'w1', 1), 'not a frame\n');
  await expect(open(store())).rejects.toThrow(/w1\.00000001\.log is damaged at byte 0/);
});

test('a failed fold loses nothing: the next fold reads the turns back from disk, once', async () => {
  const s = store();
  let fail = true;
  const j = await open(s, {
    fold: (r, p, a) => {
      if (fail) throw new Error('store down');
      s.fold(r, p, a);
    },
  });
  j.append(1);
  await j.written();
  await expect(j.foldNow()).rejects.toThrow('store down');
  j.append(2);
  await j.written();
  fail = false;
  await j.foldNow();
  expect(s.folded).toEqual([1, 2]);
  await j.close();
});

test('past maxUnfolded records the memory copy is dropped and the fold reads the file', async () => {
  const s = store();
  const j = await open(s, { maxUnfolded: 3, maxBatch: 2, autoFlush: false });
  for (let t = 0; t < 6; t++) {
    j.append(t);
    j.flush();
  }
  await j.foldNow();
  expect(s.folded).toEqual([0, 1, 2, 3, 4, 5]);
  expect(s.calls.map((c) => c.size)).toEqual([2, 2, 2]);
  await j.close();
});

test.each([
  [{ foldEveryMs: 0 }, /foldEveryMs/],
  [{ segmentBytes: -1 }, /segmentBytes/],
  [{ name: '../x' }, /name/],
  [{ foldedPosition: 1.5 }, /foldedPosition/],
])('refuses bad options %p', async (bad, message) => {
  await expect(open(store(), bad as Partial<JournalOptions<number>>)).rejects.toThrow(message);
  expect(readdirSync(dir)).toEqual([]);
});
