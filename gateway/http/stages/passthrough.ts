/**
 * Stage: passthrough (D26). A request on one of the host's passthrough routes is forwarded as it is (path, query
 * minus every credential position, body) to the host's backend and its answer streamed back. It is identified,
 * admitted and billed like a translated call (same identity, slots, allowance and refusals) as one plan of `cost`
 * units (0: not counted); D11's passthrough column settles it: a 5xx, a timeout or a connection failure is released;
 * any other answer is kept when its status line arrives (however long it then streams, within the route's deadline).
 */
import type { PassthroughRoute } from '../../config/backends';
import { MESSAGES } from '../../core/errors';
import type { RequestContext, Refusal } from '../context';
import { CORS_HEADERS } from '../headers';
import {
  matchRoute,
  passthroughHeaders,
  passthroughUrl,
  safePath,
  UNSAFE_PATH,
  withoutCredentials,
} from '../passthrough-path';
import type { PassOutcome } from '../passthrough-proxy';
import { adapterRequest, flatHeaders, readBody } from '../request';
import { D11, passthroughKind } from '../settlement';
import { admitUnits } from './count';
import { requestBody } from './parse';
import { fail } from './render';
import { keepTicket, releaseTicket } from './settle';

const BAD_PATH: Refusal = Object.freeze({
  code: 'invalid_parameter',
  detail: UNSAFE_PATH,
  facts: Object.freeze({ parameter: 'path' }),
});

/** What the walk does with a request on a host with passthrough routes: a route, a refusal, or the adapter (null). */
export function passthroughRoute(ctx: RequestContext): PassthroughRoute | Refusal | null {
  if (ctx.host.passthrough.length === 0) return null;
  const path = safePath(ctx.rawPath);
  // Checked for every request of such a host: no route may be reached by a path that normalises into it.
  if (path === null) return BAD_PATH;
  return matchRoute(ctx.host.passthrough, path);
}

/** Serve a passthrough request; a refusal is returned, a store fault thrown. */
export async function servePassthrough(
  ctx: RequestContext,
  route: PassthroughRoute,
): Promise<Refusal | null> {
  const { req } = ctx;
  const method = ctx.line.method;
  if (!route.methods.has(method)) {
    const allow = [...route.methods, 'OPTIONS'].join(', ');
    return {
      code: 'method_not_allowed',
      detail: `Method ${method} is not allowed here.`,
      headers: { allow },
    };
  }
  ctx.passthrough = route;
  const read = requestBody(req, await readBody(req));
  if ('code' in read) return read;
  const { body, formText, form } = read;
  const headers = flatHeaders(req);
  ctx.areq = adapterRequest(
    method,
    ctx.rawPath,
    ctx.query,
    headers,
    formText,
    ctx.host.adapter.credentialParams,
  );
  ctx.form = form;
  const refusal = await admitUnits(ctx, route.cost);
  if (refusal !== null) return refusal;

  const names = ctx.host.credentialNames;
  const backend = ctx.host.backend;
  const proxies = ctx.deps.passthrough;
  if (proxies === undefined) throw new Error('passthrough route without a passthrough transport');
  const sentBody = formText === null ? body : Buffer.from(withoutCredentials(formText, names), 'utf8');
  ctx.res.setHeader('x-request-id', ctx.requestId);
  for (const [k, v] of Object.entries({ ...CORS_HEADERS, ...ctx.quota })) ctx.res.setHeader(k, v);
  let kept = false;
  const outcome = await proxies.of(backend)(req, ctx.res, {
    url: passthroughUrl(backend, ctx.rawPath, withoutCredentials(ctx.query, names)),
    method,
    headers: passthroughHeaders(req.headers, backend, backend.passRequestId ? ctx.requestId : null),
    body: sentBody,
    deadlineMs: route.deadlineMs,
    responseHeaders: route.responseHeaders,
    onStatus: (status) => {
      // D11's passthrough column at the status line: an answer below 500 is charged, however long it then takes.
      if (!D11[passthroughKind(status)].keepPassthrough) return;
      kept = true;
      if (ctx.ticket !== null) keepTicket(ctx, ctx.ticket);
    },
  });
  await settlePassthrough(ctx, outcome, kept);
  return null;
}

/**
 * D11 for passthrough, after the answer: not `kept` (no status line D11 keeps came) is released; a timeout or a
 * failure before the status line is answered in the host's shape, one after it cuts the client's connection.
 */
async function settlePassthrough(ctx: RequestContext, outcome: PassOutcome, kept: boolean): Promise<void> {
  const { logger } = ctx.deps;
  if (!kept && ctx.ticket !== null) await releaseTicket(ctx, ctx.ticket);
  if (outcome.kind === 'client_gone') {
    ctx.outcome = 'client_gone';
    return;
  }
  if (outcome.kind === 'answered') {
    if (outcome.status >= 500)
      logger.warn({ status: outcome.status, requestId: ctx.requestId }, 'backend error (passthrough)');
    return;
  }
  if (outcome.kind === 'timeout')
    return fail(ctx, 'backend_timeout', MESSAGES.backend_timeout, {}, ctx.quota);
  if (outcome.kind === 'cut') {
    logger.warn(
      { status: outcome.status, requestId: ctx.requestId },
      'passthrough answer cut at its deadline',
    );
    ctx.outcome = 'backend_timeout';
    ctx.res.destroy();
    return;
  }
  logger.warn({ reason: outcome.reason, requestId: ctx.requestId }, 'backend unavailable (passthrough)');
  if (!outcome.started) fail(ctx, 'backend_unavailable', MESSAGES.backend_unavailable, {}, ctx.quota);
  else ctx.res.destroy();
}
