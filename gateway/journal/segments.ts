/**
 * The journal's files: `<name>.<number>.log` in one folder, numbered in write order. Only the newest segment is
 * written; older ones are closed (synced when they were rotated) and deleted or kept once folded (D34, D35).
 */
import { readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { scanFrames, type Frame } from './frame';

/** A segment file and the sequence range of its frames (`first > last` when it holds none). */
export interface Segment {
  number: number;
  path: string;
  first: number;
  last: number;
}

/** The path of segment `number` of journal `name` in `dir`. */
export function segmentPath(dir: string, name: string, number: number): string {
  return join(dir, `${name}.${String(number).padStart(8, '0')}.log`);
}

/** The segment numbers of journal `name` in `dir`, oldest first. */
export function listSegments(dir: string, name: string): number[] {
  const prefix = `${name}.`;
  const numbers: number[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(prefix) || !file.endsWith('.log')) continue;
    const n = file.slice(prefix.length, -'.log'.length);
    if (/^\d{8,}$/.test(n)) numbers.push(Number(n));
  }
  return numbers.sort((a, b) => a - b);
}

/** Thrown when a segment other than the newest has a torn or broken frame: that is damage, not a crash. */
export class JournalCorrupt extends Error {
  constructor(
    readonly path: string,
    readonly offset: number,
    why: string,
  ) {
    super(`journal segment ${path} is damaged at byte ${offset} (${why})`);
  }
}

/**
 * Reads a segment's frames (continuing `afterSeq` when given). In the newest segment a torn tail is the trace of a
 * kill -9 mid-write: it is ignored and, with `truncateTorn`, cut off so the next append starts on a clean line.
 */
export function readSegment<R>(
  path: string,
  opts: { newest: boolean; truncateTorn: boolean; afterSeq?: number },
): { frames: Frame<R>[]; validBytes: number; tornBytes: number } {
  const buf = readFileSync(path);
  const scan = scanFrames<R>(buf, opts.afterSeq);
  if (scan.torn !== 'none' && !opts.newest) throw new JournalCorrupt(path, scan.validBytes, scan.torn);
  const tornBytes = buf.length - scan.validBytes;
  if (tornBytes > 0 && opts.truncateTorn) truncateSync(path, scan.validBytes);
  return { frames: scan.frames, validBytes: scan.validBytes, tornBytes };
}

/** What is on disk at open: the closed segments, the newest one (to append to) and the last valid sequence. */
export interface JournalScan {
  closed: Segment[];
  active: number;
  activeBytes: number;
  last: number | undefined;
}

/** Scans every segment of journal `name` in order, cutting a torn tail off the newest one. */
export function scanJournal(dir: string, name: string): JournalScan {
  const numbers = listSegments(dir, name);
  const closed: Segment[] = [];
  let last: number | undefined;
  let activeBytes = 0;
  for (const [i, number] of numbers.entries()) {
    const path = segmentPath(dir, name, number);
    const newest = i === numbers.length - 1;
    const after = last === undefined ? {} : { afterSeq: last };
    const seg = readSegment(path, { newest, truncateTorn: true, ...after });
    const first = seg.frames[0]?.seq ?? (last ?? 0) + 1;
    last = seg.frames.at(-1)?.seq ?? last;
    if (newest) activeBytes = seg.validBytes;
    else closed.push({ number, path, first, last: last ?? 0 });
  }
  return { closed, active: numbers.at(-1) ?? 1, activeBytes, last };
}

/** The frames with `after < seq <= upTo` of the segments at `paths` (oldest first; the last one is the newest). */
export function* framesBetween<R>(paths: string[], after: number, upTo: number): Generator<Frame<R>> {
  for (const [i, path] of paths.entries()) {
    const { frames } = readSegment<R>(path, { newest: i === paths.length - 1, truncateTorn: false });
    for (const frame of frames) if (frame.seq > after && frame.seq <= upTo) yield frame;
  }
}
