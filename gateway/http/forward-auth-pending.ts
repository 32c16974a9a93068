/**
 * D38: forward auth's admissions waiting out their release window. The decision is the charge (the gateway never
 * sees the backend's answer, so D11 cannot be read from it), except when the proxy reports a failed answer on the
 * release route within the window: then the admission is released exactly as D11 releases a failed forward. Each
 * admission gets an id of 128 random bits (unguessable) that names it alone in this process; it is forgotten when
 * the admission is kept or released, so an id releases at most once and never after its window.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { CompiledHost } from '../config/compile';
import type { Clock } from '../core/clock';
import type { AdmissionStore } from '../store/ports';
import type { Ticket } from '../store/types';

/** One admission held for its window. */
interface Held {
  ticket: Ticket;
  host: CompiledHost;
  /** Epoch ms after which it is kept. */
  until: number;
}

/** What a release report did. */
export type ReleaseResult = { released: true; host: CompiledHost } | { released: false };

/** Ids are cut from one CSPRNG block of 256 ids (one system call per 256 admissions, not one each). */
const ID_BYTES = 16;
let pool = Buffer.alloc(0);
let offset = 0;

/** 128 fresh random bits as base64url (22 characters). */
function nextId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * 256);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

/** How often windows that have passed are kept. */
const SWEEP_MS = 250;

/** The admissions of one process waiting for a release report, kept when their window passes. */
export class PendingAdmissions {
  /** Insertion order is expiry order (one window for all), so a sweep stops at the first live entry. */
  private readonly held = new Map<string, Held>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<AdmissionStore, 'keep' | 'release'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly windowMs: number,
  ) {
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** Hold an admission for the window; its id, for the proxy to pass back on the release route. */
  hold(ticket: Ticket, host: CompiledHost): string {
    const id = nextId();
    this.held.set(id, { ticket, host, until: this.clock.now() + this.windowMs });
    return id;
  }

  /** Release the admission `id` names if it is still held (D11 for a failed answer); else nothing changes. */
  async release(id: string): Promise<ReleaseResult> {
    const held = this.held.get(id);
    if (held === undefined) return { released: false };
    this.held.delete(id);
    if (held.until < this.clock.now()) {
      // Its window passed between two sweeps: the decision stands.
      this.keep(held.ticket);
      return { released: false };
    }
    try {
      await this.store.release(held.ticket);
    } catch (err) {
      // Never kept, so the store's crash sweeper releases it after the reservation timeout (D11 still holds).
      this.logger.error({ err }, 'forward auth: release failed; the sweeper releases it');
    }
    return { released: true, host: held.host };
  }

  /** Keep every admission whose window has passed. */
  sweep(): void {
    const now = this.clock.now();
    for (const [id, held] of this.held) {
      if (held.until >= now) return;
      this.held.delete(id);
      this.keep(held.ticket);
    }
  }

  /** How many admissions are held (metrics, tests). */
  get size(): number {
    return this.held.size;
  }

  /** Stop the sweeps and keep everything still held: at shutdown the decisions stand (D38). */
  close(): void {
    clearInterval(this.timer);
    for (const held of this.held.values()) this.keep(held.ticket);
    this.held.clear();
  }

  private keep(ticket: Ticket): void {
    this.store.keep(ticket).catch((err: unknown) => this.logger.error({ err }, 'forward auth: keep failed'));
  }
}
