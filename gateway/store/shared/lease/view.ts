/**
 * What a lease holder knows of the owner's counters and slot sets (D33's "cached view"): a counter-day's used value
 * and when it was read, a slot member's liveness and when the owner last confirmed it. Filled by reads in the
 * background (one per counter or member at a time) and by the flush's confirmations.
 */
import type { Clock } from '../../../core/clock';
import type { AdmissionPlan, CounterSpec, SlotSpec } from '../../types';
import type { LeaseOptions } from './options';
import type { Owner } from './owner';
import type { LeaseStats } from './stats';

/** What the holder knows of a counter-day from the owner. */
interface CounterView {
  used: number;
  at: number;
}

/** The holder's view of the owner's counters and slots. */
export class OwnerView {
  /** Slot members live at the owner: "scope\nmember" → until when (fixed mode: firstSeen + window), read when. */
  private readonly slots = new Map<string, { until: number; at: number }>();
  private readonly counters = new Map<string, CounterView>();
  private readonly probing = new Set<string>();

  constructor(
    private readonly owner: Owner,
    private readonly clock: Clock,
    private readonly opts: LeaseOptions,
    private readonly stats: LeaseStats,
  ) {}

  /** Forget the counters (a release may have freed free units). */
  forgetCounters(): void {
    this.counters.clear();
  }

  /** Forget everything (an invalidation the holder cannot narrow down). */
  forget(): void {
    this.slots.clear();
    this.counters.clear();
  }

  /** A flush found the member in its set (true: confirmed now), gone (false: forgotten), or did not say (null). */
  confirmSlot(scope: string, member: string, present: boolean | null, at: number): void {
    const k = `${scope}\n${member}`;
    if (present === false) this.slots.delete(k);
    const v = this.slots.get(k);
    if (present === true && v !== undefined && v.at < at) v.at = at;
  }

  /** The plan's counters' used values when every one is known and one is exhausted, else null. */
  exhaustedCounters(plan: AdmissionPlan, now: number): number[] | null {
    if (plan.free.length === 0) return [];
    const used: number[] = [];
    let exhausted = false;
    for (const c of plan.free) {
      const v = this.counters.get(counterKey(c, plan.day));
      if (v === undefined) return null;
      // an exhausted limit above 0 may free a unit again (a release): trust it for one idle period only
      if (c.limit <= 0 || (v.used >= c.limit && now - v.at < this.opts.idleReturnMs)) exhausted = true;
      used.push(v.used);
    }
    return exhausted ? used : null;
  }

  /**
   * Every slot is fixed-mode (sliding slots go to the owner) and its member live at the owner as the holder last
   * read it, within `viewMs`: 0 no, 1 yes, 2 yes but read again soon (80 % of `viewMs` has passed).
   */
  slotsLive(slots: readonly SlotSpec[], planNow: number, now: number): 0 | 1 | 2 {
    let out: 0 | 1 | 2 = 1;
    for (const s of slots) {
      if (s.mode !== 'fixed') return 0;
      const v = this.slots.get(`${s.scope}\n${s.member}`);
      if (v === undefined || v.until <= planNow || now - v.at >= this.opts.viewMs) return 0;
      if (now - v.at >= this.opts.viewMs * 0.8) out = 2;
    }
    return out;
  }

  /** Read what the holder lacks to decide plans like this one (one read per counter and slot, in the background). */
  probe(plan: AdmissionPlan): void {
    const now = this.clock.now();
    for (const c of plan.free) {
      const k = counterKey(c, plan.day);
      const v = this.counters.get(k);
      if (v !== undefined && (c.limit <= 0 || now - v.at < this.opts.idleReturnMs)) continue;
      this.once(`c\n${k}`, async () => {
        const used = await this.owner.counter(c.id, plan.day);
        this.counters.set(k, { used, at: this.clock.now() });
      });
    }
    for (const s of plan.slots) {
      if (s.mode !== 'fixed') continue;
      const k = `${s.scope}\n${s.member}`;
      const v = this.slots.get(k);
      if (v !== undefined && v.until > plan.now && now - v.at < this.opts.viewMs * 0.8) continue;
      this.once(`s\n${k}`, async () => {
        const at = this.clock.now();
        const entry = await this.owner.slotEntry(s.scope, s.member);
        const first = entry === null ? NaN : Number(entry.split(':')[0]);
        if (Number.isFinite(first)) this.slots.set(k, { until: first + s.windowMs, at });
        else this.slots.delete(k);
      });
    }
  }

  private once(key: string, read: () => Promise<void>): void {
    if (this.probing.has(key)) return;
    this.probing.add(key);
    this.stats.probes += 1;
    void read()
      .catch(() => undefined)
      .finally(() => this.probing.delete(key));
  }
}

function counterKey(c: CounterSpec, day: string): string {
  return `${c.id}\n${day}`;
}
