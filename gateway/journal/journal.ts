/**
 * A per-process journal (D34): the records of one event-loop turn are written with one write before that turn's
 * answers leave; every `foldEveryMs` the file is fdatasync'd and the records since the last fold are handed to
 * `fold`, which the store applies in one transaction together with the position. On open, records after the
 * store's position are folded again, so each record is applied exactly once.
 */
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { encodeFrame } from './frame';
import { listSegments, readSegment, segmentPath, type Segment } from './segments';

/**
 * Applies `records` (the frames after `after` up to `position`) in one transaction that also stores `position`;
 * applying it only when the stored position equals `after` makes a repeat after an ambiguous failure harmless.
 */
export type Fold<R> = (records: R[], position: number, after: number) => void | Promise<void>;

/** How a journal is opened. */
export interface JournalOptions<R> {
  dir: string;
  /** One name per process (e.g. `worker-2`): a journal has exactly one writer. */
  name: string;
  /** The position the store's last fold recorded (0 when it never folded). */
  foldedPosition: number;
  fold: Fold<R>;
  /** D34: 1000 on the embedded store, 250 on the shared store. */
  foldEveryMs: number;
  /** Flush each turn on setImmediate (default) or only when `flush()` is called (and before each fold). */
  autoFlush?: boolean;
  /** The newest segment is closed and a new one started past this size (default 4 MiB). */
  segmentBytes?: number;
  /** Folded segments kept as the per-request audit trail (D35); older ones are deleted (default 0). */
  keepFolded?: number;
  /** Records held in memory for the next fold; beyond it the fold reads them back from disk (default 100,000). */
  maxUnfolded?: number;
  /** Records per fold call when folding from disk, on open or after a failed fold (default 10,000). */
  maxBatch?: number;
  /** A failed timed fold or a failed automatic flush that no appender awaited (retried by the next fold). */
  onError?: (err: unknown) => void;
}

interface Turn {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const RESOLVED = Promise.resolve();

/** The journal of one process. Open it with `Journal.open`, which replays what the store has not folded. */
export class Journal<R> {
  private fd: number;
  private size: number;
  private pending: R[] = [];
  private turn: Turn | undefined;
  private scheduled = false;
  /** Turns written since the last fold, or null when they must be read back from disk. */
  private unfolded: R[][] | null = [];
  private unfoldedCount = 0;
  private folding: Promise<void> | undefined;
  private retired: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly flushOnImmediate = (): void => this.autoFlush();

  private constructor(
    private readonly opts: JournalOptions<R>,
    private readonly closed: Segment[],
    private active: number,
    private seq: number,
    private foldedPos: number,
  ) {
    this.fd = openSync(segmentPath(opts.dir, opts.name, active), 'a');
    this.size = 0;
  }

  /** Opens (or creates) the journal, cuts a torn last line, folds every record after `foldedPosition` again. */
  static async open<R>(opts: JournalOptions<R>): Promise<Journal<R>> {
    mkdirSync(opts.dir, { recursive: true });
    const numbers = listSegments(opts.dir, opts.name);
    const closed: Segment[] = [];
    let last: number | undefined;
    let activeBytes = 0;
    for (const [i, number] of numbers.entries()) {
      const path = segmentPath(opts.dir, opts.name, number);
      const newest = i === numbers.length - 1;
      const seg = readSegment<R>(path, {
        newest,
        truncateTorn: true,
        ...(last === undefined ? {} : { afterSeq: last }),
      });
      const first = seg.frames[0]?.seq ?? (last ?? 0) + 1;
      last = seg.frames.at(-1)?.seq ?? last;
      if (newest) activeBytes = seg.validBytes;
      else closed.push({ number, path, first, last: last ?? 0 });
    }
    const seq = Math.max(last ?? 0, opts.foldedPosition);
    const journal = new Journal(opts, closed, numbers.at(-1) ?? 1, seq, opts.foldedPosition);
    journal.size = activeBytes;
    journal.unfolded = null; // what is on disk after the store's position is folded from disk
    await journal.foldNow();
    journal.timer = setInterval(
      () => void journal.foldNow().catch((e) => opts.onError?.(e)),
      opts.foldEveryMs,
    );
    journal.timer.unref();
    return journal;
  }

  /** The position of the last written turn. */
  get position(): number {
    return this.seq;
  }

  /** The position the last successful fold covered. */
  get foldedPosition(): number {
    return this.foldedPos;
  }

  /** Adds a record to this turn's write. */
  append(record: R): void {
    this.pending.push(record);
    if (!this.scheduled && this.opts.autoFlush !== false) {
      this.scheduled = true;
      setImmediate(this.flushOnImmediate);
    }
  }

  /** Resolves when this turn's records are written (one promise per turn, shared by its appenders). */
  written(): Promise<void> {
    if (this.pending.length === 0) return RESOLVED;
    if (this.turn === undefined) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      this.turn = { promise, resolve, reject };
    }
    return this.turn.promise;
  }

  /** Writes the pending records as one frame with one write; a no-op when nothing is pending. Throws on I/O errors. */
  flush(): void {
    if (this.pending.length === 0) return;
    const records = this.pending;
    const turn = this.turn;
    this.pending = [];
    this.turn = undefined;
    const buf = encodeFrame(this.seq + 1, records);
    try {
      let done = 0;
      while (done < buf.length) done += writeSync(this.fd, buf, done);
    } catch (err) {
      ftruncateSync(this.fd, this.size); // no half frame stays in front of the next one
      turn?.reject(err);
      throw err;
    }
    this.seq += 1;
    this.size += buf.length;
    this.keepForFold(records);
    turn?.resolve();
    if (this.size >= (this.opts.segmentBytes ?? 4 << 20)) this.rotate();
  }

  /** fdatasyncs the journal and folds every written record not yet folded; one fold runs at a time. */
  foldNow(): Promise<void> {
    this.folding ??= this.runFold().finally(() => {
      this.folding = undefined;
      for (const fd of this.retired.splice(0)) closeSync(fd);
    });
    return this.folding;
  }

  /** Writes what is pending, folds everything, stops the timer and closes the file. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    await this.foldNow();
    closeSync(this.fd);
  }

  private autoFlush(): void {
    this.scheduled = false;
    const observed = this.turn !== undefined;
    try {
      this.flush();
    } catch (err) {
      if (!observed) this.opts.onError?.(err);
    }
  }

  private keepForFold(records: R[]): void {
    if (this.unfolded === null) return;
    this.unfoldedCount += records.length;
    if (this.unfoldedCount > (this.opts.maxUnfolded ?? 100_000)) this.unfolded = null;
    else this.unfolded.push(records);
  }

  private rotate(): void {
    fdatasyncSync(this.fd); // a closed segment is durable, so a fold never depends on an fd that is gone
    if (this.folding === undefined) closeSync(this.fd);
    else this.retired.push(this.fd);
    const path = segmentPath(this.opts.dir, this.opts.name, this.active);
    const first = this.closed.at(-1)?.last ?? this.foldedPos;
    this.closed.push({ number: this.active, path, first: first + 1, last: this.seq });
    this.active += 1;
    this.fd = openSync(segmentPath(this.opts.dir, this.opts.name, this.active), 'a');
    this.size = 0;
  }

  private async runFold(): Promise<void> {
    this.flush();
    const upTo = this.seq;
    if (upTo <= this.foldedPos) return this.prune();
    const memory = this.unfolded;
    this.unfolded = []; // turns written from here on belong to the next fold
    this.unfoldedCount = 0;
    try {
      await new Promise<void>((res, rej) => fdatasync(this.fd, (e) => (e ? rej(e) : res())));
      if (memory === null) await this.foldFromDisk(upTo);
      else await this.apply(flatten(memory), upTo);
    } catch (err) {
      this.unfolded = null; // the next fold reads (foldedPosition, position] back from disk
      throw err;
    }
    this.prune();
  }

  private async apply(records: R[], position: number): Promise<void> {
    await this.opts.fold(records, position, this.foldedPos);
    this.foldedPos = position;
  }

  /** Folds the frames in (foldedPosition, upTo] from the files, at most about `maxBatch` records per call. */
  private async foldFromDisk(upTo: number): Promise<void> {
    const maxBatch = this.opts.maxBatch ?? 10_000;
    const segments = [...this.closed.filter((s) => s.last > this.foldedPos).map((s) => s.path)];
    segments.push(segmentPath(this.opts.dir, this.opts.name, this.active));
    let batch: R[] = [];
    let end = this.foldedPos;
    for (const [i, path] of segments.entries()) {
      const newest = i === segments.length - 1;
      for (const frame of readSegment<R>(path, { newest, truncateTorn: false }).frames) {
        if (frame.seq <= end || frame.seq > upTo) continue;
        for (const r of frame.records) batch.push(r);
        end = frame.seq;
        if (batch.length >= maxBatch) {
          await this.apply(batch, end);
          batch = [];
        }
      }
    }
    if (batch.length > 0 || upTo > this.foldedPos) await this.apply(batch, upTo);
  }

  /** Deletes closed segments wholly folded, beyond the `keepFolded` newest of them. */
  private prune(): void {
    const folded = this.closed.filter((s) => s.last <= this.foldedPos);
    const drop = folded.length - (this.opts.keepFolded ?? 0);
    for (const seg of folded.slice(0, Math.max(0, drop))) {
      rmSync(seg.path, { force: true });
      this.closed.splice(this.closed.indexOf(seg), 1);
    }
  }
}

/** The records of several turns in write order. */
function flatten<R>(turns: R[][]): R[] {
  const out: R[] = [];
  for (const turn of turns) for (const r of turn) out.push(r);
  return out;
}
