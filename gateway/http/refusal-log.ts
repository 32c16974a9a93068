/**
 * Recent refusals (docs/decisions.md "Operator console"): the request path notes each refusal of an identified
 * caller in a bounded in-memory buffer (an array push, no store call per request); every second the buffer is written
 * to the store in one batch (ConsoleStore.recordRefusals), which keeps a day of them, at most a fixed number per
 * account. A full buffer drops and counts what does not fit; a failed write is dropped and logged (statistics only).
 */
import type { Logger } from 'pino';
import type { Clock } from '../core/clock';
import type { ConsoleStore } from '../store/ports';
import type { RefusalRecord } from '../store/ports/console';

/** Refusals held between two writes at most. */
export const REFUSAL_BUFFER = 5_000;

/** What the request path sees: one cheap call per refusal. */
export interface RefusalNotes {
  note(r: RefusalRecord): void;
}

/** The buffer and its writer. */
export class RefusalLog implements RefusalNotes {
  private pending: RefusalRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** Refusals dropped because the buffer was full or a write failed. */
  dropped = 0;

  constructor(
    private readonly store: Pick<ConsoleStore, 'recordRefusals'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly everyMs = 1_000,
  ) {}

  note(r: RefusalRecord): void {
    if (this.pending.length >= REFUSAL_BUFFER) {
      this.dropped += 1;
      return;
    }
    this.pending.push(r);
  }

  /** Write every second from now on (the timer does not keep the process alive). */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.flush(), this.everyMs);
    this.timer.unref();
  }

  /** Write what is pending now (after any write under way). */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (this.pending.length === 0) return;
      const batch = this.pending;
      this.pending = [];
      try {
        await this.store.recordRefusals(batch, this.clock.now());
      } catch (err) {
        this.dropped += batch.length;
        this.logger.warn(
          { err: (err as Error).message, refusals: batch.length },
          'recent refusals not written',
        );
      }
    });
    return this.writing;
  }

  /** Stop the timer and write what is left. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
