/**
 * The admission segment every lane runs (STYLE.md, "One middle for every lane"): client address → credential →
 * identify → restrictions → plan + admit. Translated calls (1 unit), bulk calls (one unit per lookup), passthrough
 * routes (their `cost`) and account endpoints (identified only) differ in how they parse, forward and settle, never
 * here. It alone applies onStoreFailure: open: an unreachable store serves the request uncounted (no ticket).
 */
import type { RequestContext, Refusal } from '../context';
import { StoreFault } from '../fault';
import { admitRequest } from './admit';
import { locateClient } from './client-address';
import { findRequestCredential } from './credential';
import { identifyCaller } from './identify';
import { answerTestKey } from './test-key';

/**
 * Identify the caller and admit `units` units (0: identified, not counted); sets identity, ticket and quota. A
 * refusal is returned; a store fault is thrown unless onStoreFailure is open and the lane `servesUncounted` (an
 * account endpoint cannot: it reads the store). `anonymousAllowed`: whether an anonymous caller is served.
 */
export async function admitUnits(
  ctx: RequestContext,
  units: number,
  anonymousAllowed = ctx.host.anonymous,
  servesUncounted = true,
): Promise<Refusal | null> {
  const refusal = locateClient(ctx) ?? findRequestCredential(ctx);
  if (refusal !== null) return refusal;
  const t0 = performance.now();
  try {
    const refused = await identifyCaller(ctx, anonymousAllowed);
    if (refused !== null) return refused;
    // D40: a test key is never admitted, forwarded or counted; whatever the lane, it is answered here.
    if (ctx.identity.kind === 'key' && ctx.identity.key.test === true) return answerTestKey(ctx, units);
    if (units === 0) return null;
    return await admitRequest(ctx, units);
  } catch (err) {
    if (!servesUncounted || !(err instanceof StoreFault) || ctx.deps.config.onStoreFailure !== 'open')
      throw err;
    ctx.deps.logger.warn(
      { err: err.message, requestId: ctx.requestId },
      'store unavailable: serving uncounted (onStoreFailure: open)',
    );
    return null;
  } finally {
    ctx.deps.metrics.admission(performance.now() - t0);
  }
}
