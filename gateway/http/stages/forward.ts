/** Stage: forward. The gateway-built backend call goes out with no incoming header (D14); never rejects. */
import type { BackendCall } from '../../../adapters/types';
import type { CompiledBackend, CompiledHost } from '../../config/compile';
import { MESSAGES } from '../../core/errors';
import type { BackendOutcome } from '../backend';
import type { RequestContext, Refusal } from '../context';

/**
 * The backend a call of this host goes to (D25): reverse and search → `backend`, IP → `ipBackend`; null when none
 * answers it.
 */
export function backendFor(host: CompiledHost, call: BackendCall): CompiledBackend | null {
  if (call.kind === 'ipv4') return host.ipBackend;
  if (call.kind === 'search') return host.backend.connector.search ? host.backend : null;
  return host.backend.connector.reverse ? host.backend : null;
}

const NO_BACKEND: Refusal = Object.freeze({ code: 'not_found', detail: MESSAGES.not_found });
const NO_SEARCH: Refusal = Object.freeze({ code: 'search_unavailable', detail: MESSAGES.search_unavailable });

/**
 * A call no backend of this host answers, before counting (never charged): IP lookups on a Nominatim-only host are
 * not_found; forward lookups on a host whose backend cannot search are search_unavailable (issue 11 item 5).
 */
export function checkBackend(ctx: RequestContext): Refusal | null {
  if (backendFor(ctx.host, ctx.call) !== null) return null;
  return ctx.call.kind === 'search' ? NO_SEARCH : NO_BACKEND;
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
