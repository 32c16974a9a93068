/**
 * The shared store's admission part (AdmissionStore): identification through the instance's cache (PostgreSQL behind
 * a breaker), admission and release as Lua steps per shard group (admission.ts), keeps batched (keeper.ts), refusals
 * to the event stream, and the crash sweeper's releases.
 */
import type { AdmissionCore } from '../compose';
import { newOrderedId } from '../ids';
import { addressKey } from '../ranges';
import { KEY_COLUMNS, toKeyIdentity } from '../rows';
import type { Account, AdmissionPlan, AdmissionResult, KeyIdentity, Ticket } from '../types';
import type { LeaseCounters } from '../ports/admission';
import { Admitter, sharedUndo } from './admission';
import type { WhitelistBlock } from './cache';
import type { SharedContext } from './context';
import { redisFault } from './errors';
import { Keeper } from './keeper';
import { shardOf } from './layout';
import type { MarkRef } from './step';
import { LEASE_UNDO, type LeaseHolder } from './lease/holder';

/** A copy of a lease ticket's undo (JSON round trip): settled by the holder that issued it, once. */
function isLeaseUndo(undo: unknown): boolean {
  return typeof undo === 'object' && undo !== null && (undo as { v?: unknown }).v === 'lease-1';
}

/** Unanswered admissions remembered for release once Redis answers again (beyond: they stay counted, safe side). */
const MAX_PENDING_RELEASES = 100_000;

/** Identification, admission and settlement on Redis, identities from PostgreSQL. */
export class SharedAdmission implements AdmissionCore {
  readonly keeper: Keeper;
  private readonly admitter: Admitter;
  private readonly pending = new Map<string, MarkRef[]>();
  private sweeping: Promise<number> | null = null;

  constructor(private readonly c: SharedContext) {
    this.keeper = new Keeper(c.redis, c.layout, c.clock, c.cluster);
    this.admitter = new Admitter(
      c.redis,
      c.layout,
      c.cluster,
      async (acc) => void (await c.wallets.init(acc)),
      (marks, planId) => {
        if (this.pending.size < MAX_PENDING_RELEASES) this.pending.set(planId, marks);
        else c.warn(new Error(planId), 'shared store: too many unanswered admissions; one stays counted');
      },
      c.clock,
      () => void c.rebuild().catch((err: unknown) => c.warn(err, 'shared store: counter rebuild failed')),
    );
  }

  /**
   * Release now the admissions whose answer was lost while Redis was unreachable (the background does it every
   * drain tick); stops at the first failure. Resolves to how many are still pending.
   */
  async releasePending(): Promise<number> {
    for (const [planId, marks] of this.pending) {
      try {
        await this.admitter.releaseMarks(planId, marks);
        this.pending.delete(planId);
      } catch {
        break;
      }
    }
    return this.pending.size;
  }

  /**
   * Release admissions in flight longer than `timeoutMs` (crashed instances'); one sweep at a time. Resolves to how
   * many admission steps were released.
   */
  sweep(timeoutMs: number): Promise<number> {
    if (this.sweeping) return this.sweeping;
    const run = this.keeper.sweep(timeoutMs).finally(() => (this.sweeping = null));
    this.sweeping = run;
    return run;
  }

  /** Lease counters so far (read by the metrics at each scrape); null without leases. */
  leaseStats(): LeaseCounters | null {
    return this.c.leases?.stats ?? null;
  }

  /** Key identity cache lookups so far (read by the metrics at each scrape). */
  identityCacheStats(): { hits: number; misses: number } {
    return this.c.cache.stats;
  }

  async findKeyByHash(hash: string): Promise<KeyIdentity | null> {
    const c = this.c;
    return c.cache.key(hash, () =>
      c.pgLookup(async () => {
        // D39: the current secret, or the previous one of a rotation (with until when it works): one statement.
        const keyColumns = KEY_COLUMNS.map((col) => `k.${col} as k_${col}`);
        const row = await c.knex
          .select('a.*', ...keyColumns, c.knex.raw('NULL::bigint AS secret_until'))
          .from('api_keys as k')
          .join('accounts as a', 'a.id', 'k.account_id')
          .where('k.hash', hash)
          .unionAll((q) =>
            q
              .select('a.*', ...keyColumns, 'k.previous_until as secret_until')
              .from('api_keys as k')
              .join('accounts as a', 'a.id', 'k.account_id')
              .where('k.previous_hash', hash),
          )
          .first();
        return row ? toKeyIdentity(row) : null;
      }),
    );
  }

  async findWhitelistedAccount(address: string): Promise<Account | null> {
    const k = addressKey(address);
    if (!k) return null;
    const c = this.c;
    const blocks = await c.cache.blocks(() =>
      c.pgLookup(async () => {
        const rows = await c.knex('whitelist').select('family', 'range_start', 'range_end', 'account_id');
        return rows.map((r: Record<string, unknown>): WhitelistBlock => ({
          family: Number(r.family),
          start: String(r.range_start),
          end: String(r.range_end),
          accountId: String(r.account_id),
        }));
      }),
    );
    let best: WhitelistBlock | null = null;
    for (const b of blocks) {
      if (b.family === k.family && b.start <= k.hex && b.end >= k.hex && (!best || b.start > best.start))
        best = b;
    }
    if (!best) return null;
    const id = best.accountId;
    return c.cache.account(id, () => c.pgLookup(async () => c.accountRow(id)));
  }

  admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    const leases = this.c.leases;
    if (leases === null) return this.admitter.admit(plan);
    let r: AdmissionResult | null;
    try {
      r = leases.tryAdmit(plan);
    } catch (err) {
      return Promise.reject(err as Error); // a plan id admitted twice: a fault, as at the owner
    }
    return r !== null ? Promise.resolve(r) : this.admitAtOwner(plan);
  }

  /**
   * A plan the holder could not decide: the owner's script (which spends only what no holder leased). A refusal for
   * want of credit while this holder still has some parked is given only after returning it (D33).
   */
  private async admitAtOwner(plan: AdmissionPlan): Promise<AdmissionResult> {
    const leases = this.c.leases as LeaseHolder;
    let r = await this.admitter.admit(plan);
    const of = plan.overflow;
    if (of.kind !== 'bill') return r;
    // a few rounds at most: concurrent admissions may have been granted a lease meanwhile
    for (let i = 0; i < 3 && !r.admitted && r.code === of.refuse && leases.mayHold(of.accountId); i++) {
      await leases.returnParked(of.accountId);
      r = await this.admitter.admit(plan);
    }
    if (r.admitted) {
      leases.admittedAtOwner(plan.id);
      leases.missed(plan);
    }
    return r;
  }

  release(ticket: Ticket): Promise<void> {
    if (ticket.undo === LEASE_UNDO || isLeaseUndo(ticket.undo)) {
      this.c.leases?.release(ticket.planId);
      return Promise.resolve();
    }
    this.c.leases?.settledAtOwner(ticket.planId, true);
    return this.admitter.release(ticket);
  }

  keep(ticket: Ticket): Promise<void> {
    if (ticket.undo === LEASE_UNDO || isLeaseUndo(ticket.undo)) {
      this.c.leases?.keep(ticket.planId);
      return Promise.resolve();
    }
    this.c.leases?.settledAtOwner(ticket.planId, false);
    return this.keeper.keep(ticket.planId, sharedUndo(ticket, 'keep').marks);
  }

  async recordRefusal(subjects: string[], day: string): Promise<void> {
    const first = subjects[0];
    if (first === undefined) return;
    const stream = this.c.layout.stream(shardOf(first));
    try {
      await this.c.redis.xadd(
        stream,
        '*',
        't',
        'ref',
        'e',
        `ref:${newOrderedId('led')}`,
        'd',
        day,
        'u',
        subjects.join(' '),
      );
    } catch (err) {
      throw redisFault(err);
    }
  }
}
