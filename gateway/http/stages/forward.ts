/** Stage: forward. The gateway-built backend call goes out with no incoming header (D14); never rejects. */
import type { BackendCall } from '../../../adapters/types';
import type { CompiledBackend, CompiledHost } from '../../config/compile';
import { MESSAGES } from '../../core/errors';
import type { BackendOutcome } from '../backend';
import type { RequestContext, Refusal } from '../context';

/** The backend a call of this host goes to (D25): reverse → `backend`, IP → `ipBackend`; null when none answers it. */
export function backendFor(host: CompiledHost, call: BackendCall): CompiledBackend | null {
  if (call.kind === 'ipv4') return host.ipBackend;
  return host.backend.connector.reverse ? host.backend : null;
}

const NO_BACKEND: Refusal = Object.freeze({ code: 'not_found', detail: MESSAGES.not_found });

/** A call no backend of this host answers (IP lookups on a Nominatim-only host): not_found, before counting. */
export function checkBackend(ctx: RequestContext): Refusal | null {
  return backendFor(ctx.host, ctx.call) === null ? NO_BACKEND : null;
}

/** Forward the request's backend call; the outcome is a value (answer, unavailable, timeout, client gone). */
export function forwardRequest(ctx: RequestContext): Promise<BackendOutcome> {
  return ctx.deps.forward(
    ctx.req,
    ctx.res,
    ctx.call,
    ctx.requestId,
    backendFor(ctx.host, ctx.call) ?? undefined,
  );
}
