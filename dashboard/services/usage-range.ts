/** The usage page's range: the last 7, 30 or 90 UTC days, or custom days (at most a year, none in the future). */
import { DAY_MS, utcDay } from '../../gateway/core/clock';
import { invalidField } from '../errors';

/** Inclusive UTC days. */
export interface UsageRange {
  /** "7", "30", "90" or "custom". */
  kind: string;
  from: string;
  to: string;
}

/** The presets offered. */
export const RANGE_PRESETS = ['7', '30', '90'] as const;
/** The longest custom range, in days. */
export const MAX_RANGE_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch ms of a YYYY-MM-DD day that exists, else null. */
function dayMs(s: unknown): number | null {
  if (typeof s !== 'string' || !DAY.test(s)) return null;
  const ms = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(ms) && utcDay(ms) === s ? ms : null;
}

/** The last `n` days up to today. */
export function lastDays(now: number, n: number): UsageRange {
  return { kind: String(n), from: utcDay(now - (n - 1) * DAY_MS), to: utcDay(now) };
}

/** The range a request asks for (`range`, `from`, `to`); default the last 30 days. Bad days are 400 naming the field. */
export function parseRange(now: number, q: Record<string, unknown>): UsageRange {
  const kind = q['range'];
  if (kind === undefined || kind === '') return lastDays(now, 30);
  if (typeof kind === 'string' && (RANGE_PRESETS as readonly string[]).includes(kind))
    return lastDays(now, Number(kind));
  if (kind !== 'custom') throw invalidField('range', 'Choose 7, 30 or 90 days, or custom days');
  const from = dayMs(q['from']);
  if (from === null) throw invalidField('from', 'Enter the first day as YYYY-MM-DD');
  const to = dayMs(q['to']);
  if (to === null) throw invalidField('to', 'Enter the last day as YYYY-MM-DD');
  if (to > now) throw invalidField('to', 'The last day cannot be in the future');
  if (from > to) throw invalidField('from', 'The first day must not be after the last day');
  if ((to - from) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw invalidField('from', `Choose at most ${MAX_RANGE_DAYS} days`);
  return { kind: 'custom', from: utcDay(from), to: utcDay(to) };
}

/** The days of a range, oldest first. */
export function rangeDays(r: UsageRange): string[] {
  const out: string[] = [];
  for (
    let t = Date.parse(`${r.from}T00:00:00Z`), end = Date.parse(`${r.to}T00:00:00Z`);
    t <= end;
    t += DAY_MS
  )
    out.push(utcDay(t));
  return out;
}
