/**
 * Stage: burst limits (gateway/policy/burst.ts), run by admit in the same step as the admission, before the store is
 * asked: a request over a limit is refused 429 rate_limited with Retry-After and the burst policy's RateLimit fields,
 * counted nowhere (D10). When no limit applies to the caller it costs one null check and one property read.
 */
import type { RequestContext, Refusal } from '../context';
import {
  addBurstFields,
  burstSubjects,
  isBurstRefusal,
  type BurstRefusal,
  type BurstTaken,
} from '../../policy/burst';

/** What the burst stage decided: nothing to count (null), counted (to give back on refusal), or refused. */
export type BurstOutcome = BurstTaken | Refusal | null;

/** Count the identified request against its burst limits; a refusal value when one is met. */
export function takeBurst(ctx: RequestContext, now: number): BurstOutcome {
  const limiter = ctx.deps.burst;
  if (limiter === undefined) return null;
  const identity = ctx.identity;
  const config = ctx.deps.config.burst;
  if (config === null && (identity.kind !== 'key' || identity.key.burst === undefined)) return null;
  const subjects = burstSubjects(config, identity, ctx.deps.config.rules, ctx.address);
  if (subjects.length === 0) return null;
  const taken = limiter.take(subjects, now);
  if (!isBurstRefusal(taken)) return taken;
  ctx.deps.metrics.burstRefused(taken.scope, taken.window);
  return burstRefusal(taken);
}

/** The refusal of a met burst limit: 429, Retry-After (≥ 1 s), the RateLimit items of each limited window. */
function burstRefusal(r: BurstRefusal): Refusal {
  const headers: Record<string, string> = { 'retry-after': String(r.retryAfter) };
  addBurstFields(headers, r.fields);
  const who = r.scope === 'anonymous' ? 'address' : r.scope;
  return {
    code: 'rate_limited',
    detail: `More than ${r.limit} requests per ${r.window} for this ${who}; retry in ${r.retryAfter} s.`,
    facts: { retryAfter: r.retryAfter, rateWindow: r.window },
    headers,
  };
}

/** After the store's answer: an admitted request shows the burst policy beside the daily one; a refused one gives back. */
export function settleBurst(ctx: RequestContext, taken: BurstTaken, admitted: boolean): void {
  if (!admitted) {
    ctx.deps.burst?.give(taken);
    return;
  }
  if (taken.fields.policy === '') return;
  const quota = { ...ctx.quota };
  addBurstFields(quota, taken.fields);
  ctx.quota = quota;
}

/** Whether a burst outcome is a refusal to return. */
export function burstRefused(o: BurstOutcome): o is Refusal {
  return o !== null && 'code' in o;
}
