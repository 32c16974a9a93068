/**
 * Burst limits (docs/gateway.md, "Burst limits"; docs/decisions.md, "Burst limits"): requests per second and per
 * minute per key, per account and per anonymous counting unit, decided in memory in the admission step, with no
 * store round trip. Windows are fixed and aligned to the clock (each UTC second, each UTC minute), so every process
 * of a deployment counts the same windows; each process enforces its share of a limit (BurstShare), and the shares
 * of one window add up to the limit exactly.
 */
import type { IpAddress } from '../net/address';
import type { Identity } from './identity';
import { networkUnit } from './planner';
import type { RuleSet } from './ruleset';

/** The two windows of a burst limit. */
export type BurstWindow = 'second' | 'minute';

/** Who a burst limit counts: a key, an account (its keys and its whitelist together), an anonymous unit (D4). */
export type BurstScope = 'key' | 'account' | 'anonymous';

/** One scope's limits: at most this many requests per UTC second and per UTC minute (null: no limit). */
export interface BurstLimit {
  perSecond: number | null;
  perMinute: number | null;
}

/** A deployment's burst limits (config `burst:`); null scopes have none. */
export interface BurstConfig {
  key: BurstLimit | null;
  account: BurstLimit | null;
  anonymous: BurstLimit | null;
}

/** This process's part of every limit: `peers` processes enforce it together, this one is number `rank` of them. */
export interface BurstShare {
  peers: number;
  rank: number;
}

/** A whole process: the limit as configured (one instance, one worker). */
export const WHOLE: BurstShare = Object.freeze({ peers: 1, rank: 0 });

/** Why a request was refused: the scope and window whose limit it met, the limit, and whole seconds to wait (≥ 1). */
export interface BurstRefusal {
  scope: BurstScope;
  window: BurstWindow;
  limit: number;
  retryAfter: number;
  /** The RateLimit items of each limited window (the refusing one at r=0). */
  fields: BurstFields;
}

/** One counted subject of a request. */
interface Subject {
  id: string;
  scope: BurstScope;
  limit: BurstLimit;
}

/** A subject's counts in the current second and minute. */
interface Cell {
  second: number;
  inSecond: number;
  inMinute: number;
}

/** What a `take` counted, to give back when the admission refuses (D10: a refused request changes nothing). */
export interface BurstTaken {
  cells: Cell[];
  second: number;
  minute: number;
  /** The RateLimit items of each limited window, for the admitted answer's headers. */
  fields: BurstFields;
}

/** The IETF RateLimit items of the burst policy (draft-ietf-httpapi-ratelimit-headers), added beside "daily". */
export interface BurstFields {
  policy: string;
  state: string;
}

/** This process's allowance in window `index` of a limit: the limit split by `share`, remainders rotated by rank. */
export function shareOf(limit: number, share: BurstShare, index: number): number {
  const peers = share.peers < 1 ? 1 : share.peers;
  const base = Math.floor(limit / peers);
  const extra = limit - base * peers;
  return base + ((index + share.rank) % peers < extra ? 1 : 0);
}

/** The subjects a request is counted to, with their limits; empty when no burst limit applies (nothing to do). */
export function burstSubjects(
  config: BurstConfig | null,
  identity: Identity,
  rules: RuleSet,
  address: IpAddress,
): Subject[] {
  const out: Subject[] = [];
  if (identity.kind === 'anonymous') {
    const limit = config?.anonymous;
    if (limit) out.push({ id: `n:${networkUnit(rules, address)}`, scope: 'anonymous', limit });
    return out;
  }
  if (identity.kind === 'key') {
    const own = identity.key.burst;
    const base = config?.key ?? null;
    if (own !== undefined || base !== null) {
      const limit: BurstLimit = {
        perSecond: own?.perSecond ?? base?.perSecond ?? null,
        perMinute: own?.perMinute ?? base?.perMinute ?? null,
      };
      out.push({ id: `k:${identity.key.id}`, scope: 'key', limit });
    }
  }
  const account = config?.account;
  if (account) out.push({ id: `a:${identity.account.id}`, scope: 'account', limit: account });
  return out;
}

/** Whole seconds from `now` to the end of the window (at least 1: RFC 9110 Retry-After, as D13). */
function secondsLeft(now: number, windowMs: number): number {
  return Math.max(1, Math.ceil((windowMs - (now % windowMs)) / 1000));
}

/**
 * The in-memory windows of one process. Counts live in one map per UTC minute: when the minute turns, the map is
 * replaced, so memory holds only the subjects seen this minute and nothing is swept per request.
 */
export class BurstLimiter {
  private minute = -1;
  private cells = new Map<string, Cell>();

  /** `share` is read on every decision (a heartbeat may change it). */
  constructor(private readonly share: () => BurstShare = () => WHOLE) {}

  /** Subjects counted this minute (tests, metrics). */
  get size(): number {
    return this.cells.size;
  }

  /**
   * Count one request to every subject, all or none: refused (nothing counted) when a subject's second or minute
   * already holds this process's share of its limit; the first such subject and window is named. Either way the
   * answer's RateLimit items show each limited window, at its tightest subject.
   */
  take(subjects: readonly Subject[], now: number): BurstTaken | BurstRefusal {
    const second = Math.floor(now / 1000);
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.cells = new Map();
    }
    const share = this.share();
    const cells: Cell[] = [];
    const tight: Tightest = { second: null, minute: null };
    let refused: { scope: BurstScope; window: BurstWindow; limit: number } | null = null;
    for (const s of subjects) {
      let cell = this.cells.get(s.id);
      if (cell === undefined) {
        cell = { second, inSecond: 0, inMinute: 0 };
        this.cells.set(s.id, cell);
      } else if (cell.second !== second) {
        cell.second = second;
        cell.inSecond = 0;
      }
      const { perSecond, perMinute } = s.limit;
      if (perSecond !== null) {
        const mine = shareOf(perSecond, share, second);
        if (cell.inSecond >= mine) refused ??= { scope: s.scope, window: 'second', limit: perSecond };
        note(tight, 'second', perSecond, mine, cell.inSecond);
      }
      if (perMinute !== null) {
        const mine = shareOf(perMinute, share, minute);
        if (cell.inMinute >= mine) refused ??= { scope: s.scope, window: 'minute', limit: perMinute };
        note(tight, 'minute', perMinute, mine, cell.inMinute);
      }
      cells.push(cell);
    }
    if (refused !== null) {
      const retryAfter = secondsLeft(now, refused.window === 'second' ? 1000 : 60_000);
      return { ...refused, retryAfter, fields: fieldsOf(tight, now, refused.window) };
    }
    for (const c of cells) {
      c.inSecond++;
      c.inMinute++;
    }
    return { cells, second, minute, fields: fieldsOf(tight, now, null) };
  }

  /** Give back what `take` counted (the admission refused it, D10); a no-op once its windows have passed. */
  give(taken: BurstTaken): void {
    if (taken.minute !== this.minute) return;
    for (const c of taken.cells) {
      if (c.inMinute > 0) c.inMinute--;
      if (c.second === taken.second && c.inSecond > 0) c.inSecond--;
    }
  }
}

const NO_FIELDS: BurstFields = Object.freeze({ policy: '', state: '' });

/** Per window, the subject with the least left: its limit and what is left of it after this request. */
type Tightest = Record<BurstWindow, { limit: number; left: number } | null>;

/** Note one subject's window: what this request would leave of the process's share, as a part of the whole limit. */
function note(t: Tightest, window: BurstWindow, limit: number, mine: number, used: number): void {
  const left = mine <= 0 ? 0 : Math.max(0, (mine - used - 1) / mine);
  const seen = t[window];
  if (seen === null || left < seen.left) t[window] = { limit, left };
}

/** The RateLimit items of the noted windows, second first; the refusing window (if any) shows nothing left. */
function fieldsOf(t: Tightest, now: number, refusing: BurstWindow | null): BurstFields {
  const items: BurstFields[] = [];
  for (const window of ['second', 'minute'] as const) {
    const w = t[window];
    if (w === null) continue;
    const remaining = refusing === window ? 0 : Math.floor(w.left * w.limit);
    items.push(
      burstFields(window, w.limit, remaining, secondsLeft(now, window === 'second' ? 1000 : 60_000)),
    );
  }
  if (items.length === 0) return NO_FIELDS;
  if (items.length === 1) return items[0] as BurstFields;
  return { policy: items.map((f) => f.policy).join(', '), state: items.map((f) => f.state).join(', ') };
}

/** Whether `take` refused. */
export function isBurstRefusal(x: BurstTaken | BurstRefusal): x is BurstRefusal {
  return 'retryAfter' in x;
}

/** The policy item's name of each window. */
const ITEM: Readonly<Record<BurstWindow, string>> = { second: '"burst"', minute: '"burst-minute"' };
const WINDOW_S: Readonly<Record<BurstWindow, number>> = { second: 1, minute: 60 };

/** The RateLimit-Policy and RateLimit items of one burst window (q: the limit; r: left, approximate; t: reset). */
export function burstFields(
  window: BurstWindow,
  limit: number,
  remaining: number,
  reset: number,
): BurstFields {
  const item = ITEM[window];
  return {
    policy: `${item};q=${limit};w=${WINDOW_S[window]}`,
    state: `${item};r=${Math.max(0, remaining)};t=${reset}`,
  };
}

/** Add burst items to RateLimit headers beside what is there (the daily item), in place. */
export function addBurstFields(headers: Record<string, string>, fields: BurstFields): void {
  if (fields.policy === '') return;
  const policy = headers['ratelimit-policy'];
  const state = headers['ratelimit'];
  headers['ratelimit-policy'] = policy === undefined ? fields.policy : `${policy}, ${fields.policy}`;
  headers['ratelimit'] = state === undefined ? fields.state : `${state}, ${fields.state}`;
}
