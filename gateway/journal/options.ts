/** The options of a journal (D34) and their checks. */

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

const POSITIVE: readonly string[] = ['foldEveryMs', 'segmentBytes', 'maxUnfolded', 'maxBatch'];

/** Throws an error naming the option when `opts` cannot make a working journal. */
export function checkOptions<R>(opts: JournalOptions<R>): void {
  if (!/^[A-Za-z0-9_-]+$/.test(opts.name))
    throw new Error(`journal option name: letters, digits, - or _ only`);
  if (!Number.isSafeInteger(opts.foldedPosition) || opts.foldedPosition < 0)
    throw new Error(`journal option foldedPosition: a non-negative integer, got ${opts.foldedPosition}`);
  if (opts.keepFolded !== undefined && (!Number.isSafeInteger(opts.keepFolded) || opts.keepFolded < 0))
    throw new Error(`journal option keepFolded: a non-negative integer, got ${opts.keepFolded}`);
  for (const field of POSITIVE) {
    const v = (opts as unknown as Record<string, unknown>)[field];
    if (
      (v !== undefined || field === 'foldEveryMs') &&
      (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
    )
      throw new Error(`journal option ${field}: a positive integer, got ${String(v)}`);
  }
}
