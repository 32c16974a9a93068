/** Stage: plan + admit. The rule set plans (slots, allowance, billing); the store executes it all-or-nothing (D10). */
import { planAdmission } from '../../policy/planner';
import { newOrderedId } from '../../store/ids';
import type { Rate } from '../../../adapters/types';
import type { AdmissionPlan, AdmissionResult } from '../../store/types';
import type { RequestContext, Refusal } from '../context';
import { storeFault } from '../fault';
import { quotaHeaders, retryAfterHost } from '../headers';
import { rateOf } from '../account-call';
import { describeRefusal } from '../refusals';
import { burstRefused, settleBurst, takeBurst } from './burst';

const PAYMENT_REQUIRED: ReadonlySet<string> = new Set(['quota_exceeded', 'no_credits']);

/** The allowance of a refused plan, shown as used up; null when the identity has none (Unlimited). */
function usedUp(plan: AdmissionPlan, quota: { used: number; limit: number } | null): Rate | null {
  const rate = rateOf(plan, quota);
  return rate === null ? null : { limit: rate.limit, remaining: 0, reset: rate.reset };
}

/**
 * Admit the identified request as `units` units, all or none (D10); sets ticket and quota headers from the store's
 * result. A refusal changes nothing; a store fault is thrown.
 */
export async function admitRequest(ctx: RequestContext, units: number): Promise<Refusal | null> {
  const { config, store, clock, logger } = ctx.deps;
  const identity = ctx.identity;
  const rules = config.rules;
  const now = clock.now();
  const id = newOrderedId('adm');
  // Burst limits: decided in memory in this step, before the store; a refusal here is counted nowhere (D10).
  const burst = takeBurst(ctx, now);
  if (burstRefused(burst)) return burst;
  const plan = planAdmission({ rules, identity, address: ctx.address, now, id, units });
  let result: AdmissionResult;
  try {
    result = await store.admit(plan);
  } catch (err) {
    if (burst !== null) settleBurst(ctx, burst, false);
    throw storeFault(err);
  }
  // Allowance alerts (D30): one null check when off, nothing for anonymous callers.
  const watch = ctx.deps.allowance;
  if (watch !== undefined && identity.kind !== 'anonymous' && result.quota !== null) {
    watch.observe(identity, result.quota, now);
  }
  if (result.admitted) {
    ctx.ticket = result.ticket;
    ctx.quota = quotaHeaders(rules, result.quota, now, false);
    // Only hosts that show it (OpenCage) pay for the rate object.
    if (ctx.host.adapter.withRate) ctx.rate = rateOf(plan, result.quota);
    if (burst !== null) settleBurst(ctx, burst, true);
    return null;
  }
  if (burst !== null) settleBurst(ctx, burst, false);
  store
    .recordRefusal(plan.usage, plan.day)
    .catch((err: unknown) => logger.warn({ err, requestId: ctx.requestId }, 'recordRefusal failed'));
  // OpenCage's 402 (allowance used, no credit) shows the used-up allowance: rate.remaining 0 (issue 16 item 4).
  if (ctx.host.adapter.withRate && PAYMENT_REQUIRED.has(result.code)) ctx.rate = usedUp(plan, result.quota);
  const { detail, facts } = describeRefusal(result.code, plan, result.nextSlotFreeAt);
  return {
    code: result.code,
    detail,
    facts,
    headers: quotaHeaders(
      rules,
      result.quota,
      now,
      result.code === 'quota_exceeded' && retryAfterHost(rules, ctx.host.adapter.name),
    ),
  };
}
