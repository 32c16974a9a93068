/**
 * The shared store's lifecycle part (Lifecycle): migrations, readiness, shutdown, and the background work of a running
 * store (the ledger drain, releases of admissions whose answer was lost, the crash sweeper).
 */
import { runMigrations } from '../migrations';
import type { Lifecycle } from '../ports';
import type { SharedContext } from './context';
import { pgFault } from './errors';
import { DrainLoop, type PassOutcome } from './drain-loop';
import { ensureDrainTable } from './pg';
import type { SharedAdmission } from './port-admission';
import { shardsNotReady } from './rebuild';

/** When the background runs. */
export interface SharedTimers {
  /** The ledger drain's shortest interval between passes (default 250 ms; idle, it waits for work: drain-loop.ts). */
  drainIntervalMs?: number;
  /** Release admissions neither kept nor released this long after admission (unset: no sweeper). */
  reservationTimeoutMs?: number;
  /** How often the sweeper runs (default: a quarter of the reservation timeout, at most 10 s). */
  sweepIntervalMs?: number;
}

/** Schema, readiness, shutdown and background of one shared store. */
export class SharedLifecycle implements Lifecycle {
  private loop: DrainLoop | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private drainFailing = false;
  private closed = false;

  constructor(
    private readonly c: SharedContext,
    private readonly admission: SharedAdmission,
    private readonly timers: SharedTimers,
  ) {}

  /** Start the drain and (with a reservation timeout) the sweeper: sweep now (start-up) and periodically. */
  start(): void {
    this.c.leases?.start();
    const interval = this.timers.drainIntervalMs ?? 250;
    this.loop = new DrainLoop(this.c.redis, this.c.layout, interval, () => this.background());
    this.loop.start();
    const timeout = this.timers.reservationTimeoutMs;
    if (timeout === undefined) return;
    const every = this.timers.sweepIntervalMs ?? Math.min(10_000, Math.max(250, Math.floor(timeout / 4)));
    const run = () =>
      void this.sweep().catch((err: unknown) => this.c.warn(err, 'shared store: sweeper failed; retrying'));
    run();
    this.sweepTimer = setInterval(run, every);
    this.sweepTimer.unref();
  }

  /**
   * Release admissions in flight longer than the reservation timeout (crashed instances'); one sweep at a time.
   * Resolves to how many admission steps were released. No timeout configured: nothing to do (0).
   */
  sweep(): Promise<number> {
    const timeout = this.timers.reservationTimeoutMs;
    return timeout === undefined ? Promise.resolve(0) : this.admission.sweep(timeout);
  }

  /** Drain the event streams and release admissions whose outcome was unknown. */
  private async background(): Promise<PassOutcome> {
    const { drained, error: err } = await this.c.drain.tick();
    // Log state changes only: a PostgreSQL outage must not log four lines a second.
    if (err && !this.drainFailing)
      this.c.warn(err, 'shared store: ledger drain failing; retrying every tick');
    if (!err && this.drainFailing) this.c.warn({ message: 'ok' }, 'shared store: ledger drain recovered');
    this.drainFailing = err !== null;
    const pending = await this.admission.releasePending();
    return { retry: err !== null || pending > 0, drained };
  }

  async migrate(): Promise<void> {
    try {
      await runMigrations(this.c.knex);
      await ensureDrainTable(this.c.knex);
    } catch (err) {
      throw pgFault(err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.loop?.stop();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const { redis } = this.c;
    // Unreachable Redis: nothing can be kept or drained, and waiting would only delay the release of the handles.
    if (redis.status === 'ready') {
      await this.c.leases
        ?.close()
        .catch((err: unknown) => this.c.warn(err, 'shared store: lease flush failed'));
      await this.admission.keeper.settle(); // keeps still batched (keeper.ts DEFER_MS)
      await this.c.drain.flush().catch(() => undefined);
    }
    await this.c.bus.stop();
    redis.disconnect();
    await this.c.knex.destroy();
  }

  /** Both databases answer (for /readyz). */
  async readiness(): Promise<Record<string, boolean>> {
    const within = <T>(p: Promise<T>) =>
      Promise.race([
        p.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 1_000).unref()),
      ]).catch(() => false);
    const [redis, postgres] = await Promise.all([
      within(this.c.redis.ping().then(() => this.countersInPlace())),
      within(this.c.knex.raw('SELECT 1')),
    ]);
    return { redis, postgres };
  }

  /** Throws while a shard's counters are missing (Redis restarted empty), and starts their rebuild. */
  private async countersInPlace(): Promise<void> {
    if ((await shardsNotReady(this.c.redis, this.c.layout)).length === 0) return;
    void this.c.rebuild().catch((err: unknown) => this.c.warn(err, 'shared store: counter rebuild failed'));
    throw new Error('counters are being rebuilt');
  }
}
