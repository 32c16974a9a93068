/**
 * A per-process journal (D34): the records of one event-loop turn are written with one write before that turn's
 * answers leave; every `foldEveryMs` the file is fdatasync'd and the records since the last fold are handed to
 * `fold`, which the store applies in one transaction together with the position. On open, records after the
 * store's position are folded again, so each record is applied exactly once.
 */
import * as fs from 'node:fs';
import { encodeFrame } from './frame';
import { checkOptions, type JournalOptions } from './options';
import { framesBetween, scanJournal, segmentPath, type Segment } from './segments';

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
    this.fd = fs.openSync(segmentPath(opts.dir, opts.name, active), 'a');
    this.size = 0;
  }

  /** Opens (or creates) the journal, cuts a torn last line, folds every record after `foldedPosition` again. */
  static async open<R>(opts: JournalOptions<R>): Promise<Journal<R>> {
    checkOptions(opts);
    fs.mkdirSync(opts.dir, { recursive: true });
    const { closed, active, activeBytes, last } = scanJournal(opts.dir, opts.name);
    const seq = Math.max(last ?? 0, opts.foldedPosition);
    const journal = new Journal(opts, closed, active, seq, opts.foldedPosition);
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
      while (done < buf.length) done += fs.writeSync(this.fd, buf, done);
    } catch (err) {
      fs.ftruncateSync(this.fd, this.size); // no half frame stays in front of the next one
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
      for (const fd of this.retired.splice(0)) fs.closeSync(fd);
    });
    return this.folding;
  }

  /** Writes what is pending, folds everything, stops the timer and closes the file. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    while (this.foldedPos < this.seq) await this.foldNow(); // a running fold may not cover the last turns
    fs.closeSync(this.fd);
  }

  /** Stops the timer and closes the file without writing or folding: what a kill -9 leaves (crash tests). */
  abandon(): void {
    clearInterval(this.timer);
    this.pending = [];
    this.turn = undefined;
    fs.closeSync(this.fd);
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
    fs.fdatasyncSync(this.fd); // a closed segment is durable, so a fold never depends on an fd that is gone
    if (this.folding === undefined) fs.closeSync(this.fd);
    else this.retired.push(this.fd);
    const path = segmentPath(this.opts.dir, this.opts.name, this.active);
    const first = this.closed.at(-1)?.last ?? this.foldedPos;
    this.closed.push({ number: this.active, path, first: first + 1, last: this.seq });
    this.active += 1;
    this.fd = fs.openSync(segmentPath(this.opts.dir, this.opts.name, this.active), 'a');
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
      await new Promise<void>((res, rej) => fs.fdatasync(this.fd, (e) => (e ? rej(e) : res())));
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
    const paths = this.closed.filter((s) => s.last > this.foldedPos).map((s) => s.path);
    paths.push(segmentPath(this.opts.dir, this.opts.name, this.active));
    let batch: R[] = [];
    for (const frame of framesBetween<R>(paths, this.foldedPos, upTo)) {
      for (const r of frame.records) batch.push(r);
      if (batch.length >= maxBatch && frame.seq < upTo) {
        await this.apply(batch, frame.seq);
        batch = [];
      }
    }
    await this.apply(batch, upTo);
  }

  /** Deletes closed segments wholly folded, beyond the `keepFolded` newest of them. */
  private prune(): void {
    const folded = this.closed.filter((s) => s.last <= this.foldedPos);
    const drop = folded.length - (this.opts.keepFolded ?? 0);
    for (const seg of folded.slice(0, Math.max(0, drop))) {
      fs.rmSync(seg.path, { force: true });
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
