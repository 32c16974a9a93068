/** Stage: plan + admit. The rule set plans (slots, allowance, billing); the store executes it all-or-nothing (D10). */
import { randomUUID } from 'node:crypto';
import { planAdmission } from '../../policy/planner';
import type { AdmissionResult } from '../../store/types';
import type { RequestContext, Refusal } from '../context';
import { storeFault } from '../fault';
import { quotaHeaders } from '../headers';
import { rateOf } from '../account-call';
import { describeRefusal } from '../refusals';

/** Admit the identified request; sets ticket and quota headers. A refusal changes nothing; a store fault is thrown. */
export async function admitRequest(ctx: RequestContext): Promise<Refusal | null> {
  const { config, store, clock, logger } = ctx.deps;
  const identity = ctx.identity;
  const rules = config.rules;
  const now = clock.now();
  const plan = planAdmission({ rules, identity, address: ctx.address, now, id: `adm_${randomUUID()}` });
  let result: AdmissionResult;
  try {
    result = await store.admit(plan);
  } catch (err) {
    throw storeFault(err);
  }
  if (result.admitted) {
    ctx.ticket = result.ticket;
    ctx.quota = quotaHeaders(rules, result.quota, now, false);
    // Only hosts that show it (OpenCage) pay for the rate object.
    if (ctx.host.adapter.withRate) ctx.rate = rateOf(plan, result.quota);
    return null;
  }
  store
    .recordRefusal(plan.usage, plan.day)
    .catch((err: unknown) => logger.warn({ err, requestId: ctx.requestId }, 'recordRefusal failed'));
  const { detail, facts } = describeRefusal(result.code, plan, result.nextSlotFreeAt);
  return {
    code: result.code,
    detail,
    facts,
    headers: quotaHeaders(rules, result.quota, now, result.code === 'quota_exceeded'),
  };
}
