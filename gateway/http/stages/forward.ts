/** Stage: forward. The gateway-built backend call goes out with no incoming header (D14); never rejects. */
import type { BackendOutcome } from '../backend';
import type { RequestContext } from '../context';

/** Forward the request's backend call; the outcome is a value (answer, unavailable, timeout, client gone). */
export function forwardRequest(ctx: RequestContext): Promise<BackendOutcome> {
  return ctx.deps.forward(ctx.req, ctx.res, ctx.call, ctx.requestId);
}
