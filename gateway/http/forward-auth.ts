/**
 * D38: forward auth, the decision service of an operator's edge proxy (nginx `auth_request`, Caddy `forward_auth`,
 * Traefik ForwardAuth, Envoy `ext_authz`), on a listener of its own that answers trusted proxies only (D3):
 * - `/v1/admit`: the original request (forward-auth-original.ts) is parsed by its host's adapter and walks the one
 *   admission segment (stages/count.ts `admitUnits`) as the pipeline would; 200 with the quota headers to copy and
 *   the admission's id, or the refusal the client should see (forward-auth-refusal.ts for proxies that cannot show
 *   it). The decision is the charge unless a failure is reported within the window (forward-auth-pending.ts).
 * - `POST /v1/release`: the proxy's report that the backend failed; answers the failure the client should see.
 * - `/v1/refusal`: a sealed refusal answered as it was rendered (nginx's error page).
 * docs/forward-auth.md has the proxies' configurations.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADAPTERS } from '../../adapters';
import type { AdapterResponse } from '../../adapters/types';
import type { ForwardAuthConfig } from '../config/compile';
import { MESSAGES, TITLES, type GatewayCode } from '../core/errors';
import { requestIdOf, trustedConnection } from '../net/request-id';
import { NO_HEADERS, RequestContext, type PipelineDeps, type Refusal } from './context';
import { StoreFault } from './fault';
import { ADMIT_PATH, readOriginal } from './forward-auth-original';
import { PendingAdmissions } from './forward-auth-pending';
import { RefusalSeal } from './forward-auth-refusal';
import { CORS_HEADERS } from './headers';
import { adapterRequest, flatHeaders } from './request';
import { admitUnits } from './stages/count';
import type { RequestBody } from './stages/parse';
import { parseWith } from './stages/parse';
import { passthroughRoute } from './stages/passthrough';
import { checkMethod } from './stages/preflight';
import { refusalAnswer } from './stages/render';
import { keepTicket } from './stages/settle';

/** The forward-auth listener's request handler and its held admissions. */
export interface ForwardAuth {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Admissions waiting for their window (0 when the window is 0). */
  readonly held: number;
  /** Keep every held admission (the decisions stand) and stop the window's sweeps. */
  close(): void;
}

/** The header naming an admission: in the 200 the proxy copies, and on the release route. */
export const ADMISSION_HEADER = 'x-geogate-admission';
const ID = /^[A-Za-z0-9_-]{22}$/;
/** The original request carries no body here: proxies send none to the decision service (D2a forms are not read). */
const NO_BODY: RequestBody = Object.freeze({ body: Buffer.alloc(0), formText: null, form: null });
const NATIVE = ADAPTERS['native'] as (typeof ADAPTERS)[string];
const CORS_ORIGIN = CORS_HEADERS['access-control-allow-origin'] as string;
const CORS_EXPOSE = CORS_HEADERS['access-control-expose-headers'] as string;
/** The listener's own codes, beside the gateway's (a peer outside trustProxy; a host no entry names). */
type OwnCode = 'untrusted_proxy' | 'unknown_host';
const OWN_TITLES: Readonly<Record<OwnCode, string>> = {
  untrusted_proxy: 'Untrusted proxy',
  unknown_host: 'Unknown host',
};

/** Build forward auth over the pipeline's dependencies. */
export function createForwardAuth(current: () => PipelineDeps, fa: ForwardAuthConfig): ForwardAuth {
  // The pepper, store, clock and logger stay across config reloads; hosts, limits and trusted proxies are read from
  // the config in force on each request.
  const first = current();
  const { logger } = first;
  const seal = new RefusalSeal(first.config.keyPepper);
  const pending =
    fa.releaseWindowMs > 0
      ? new PendingAdmissions(first.store, first.clock, logger, fa.releaseWindowMs)
      : null;

  /** Write an answer; a proxy that asked for a deny status gets it, with the answer sealed (nginx). */
  const deliver = (
    req: IncomingMessage,
    res: ServerResponse,
    a: AdapterResponse,
    requestId: string,
  ): number => {
    const headers: Record<string, string> = {
      'x-request-id': requestId,
      'access-control-allow-origin': CORS_ORIGIN,
      'access-control-expose-headers': CORS_EXPOSE,
      'cache-control': 'no-store',
    };
    for (const k in a.headers) headers[k] = a.headers[k] as string;
    let status = a.status;
    const deny = req.headers['x-geogate-deny-status'];
    if ((deny === '401' || deny === '403') && (status < 200 || status > 299)) {
      headers['x-geogate-refusal'] = seal.seal(a, headers);
      headers['x-geogate-status'] = String(status);
      status = Number(deny);
    }
    headers['content-length'] = String(Buffer.byteLength(a.body, 'utf8'));
    res.writeHead(status, headers).end(a.body, 'utf8');
    return status;
  };

  /** An error of the listener itself (before a host is known), as problem+json (D20). */
  const problem = (
    req: IncomingMessage,
    res: ServerResponse,
    code: GatewayCode | OwnCode,
    status: number,
    detail: string,
    parameter?: string,
  ): void => {
    const requestId = requestIdOf(req.socket, req.headers, current().config.trustProxy);
    const body = JSON.stringify({
      type: `urn:geogate:problem:${code}`,
      title: code in OWN_TITLES ? OWN_TITLES[code as OwnCode] : TITLES[code as GatewayCode],
      status,
      detail,
      code,
      ...(parameter === undefined ? {} : { parameter }),
      request_id: requestId,
    });
    deliver(req, res, { status, headers: { 'content-type': 'application/problem+json' }, body }, requestId);
  };

  /** The admission segment for the original request: its units by lane, as the pipeline counts them. */
  const decide = async (ctx: RequestContext): Promise<Refusal | null> => {
    // CORS preflight is never counted (D11): the proxy may let it through to its backend.
    if (ctx.line.method === 'OPTIONS') return null;
    const route = passthroughRoute(ctx);
    let units: number;
    if (route !== null) {
      if ('code' in route) return route;
      if (!route.methods.has(ctx.line.method)) {
        const allow = [...route.methods, 'OPTIONS'].join(', ');
        return {
          code: 'method_not_allowed',
          detail: `Method ${ctx.line.method} is not allowed here.`,
          headers: { allow },
        };
      }
      ctx.passthrough = route;
      const credentialParams = ctx.host.adapter.credentialParams;
      ctx.areq = adapterRequest(
        ctx.line.method,
        ctx.rawPath,
        ctx.query,
        flatHeaders(ctx.req),
        null,
        credentialParams,
      );
      units = route.cost;
    } else {
      const parsed = checkMethod(ctx) ?? parseWith(ctx, NO_BODY);
      if (parsed !== null) return parsed;
      units = ctx.account !== null ? 0 : ctx.bulk !== null ? ctx.bulk.items.length : 1;
    }
    return admitUnits(ctx, units);
  };

  /** Admitted: the quota headers to copy and, while it can be released, the admission's id. */
  const allow = (ctx: RequestContext): void => {
    // An explicit empty body, not chunked: nginx reads no body of an auth subrequest and keeps the upstream
    // connection alive only when the answer's length is known.
    const headers: Record<string, string> = {
      'x-request-id': ctx.requestId,
      'cache-control': 'no-store',
      'content-length': '0',
    };
    const quota = ctx.quota;
    for (const k in quota) headers[k] = quota[k] as string;
    const ticket = ctx.ticket;
    if (ticket !== null) {
      if (pending === null) keepTicket(ctx, ticket);
      else headers[ADMISSION_HEADER] = pending.hold(ticket, ctx.host);
    }
    ctx.res.writeHead(200, headers).end();
  };

  const admit = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const original = readOriginal(req, fa.request);
    if ('code' in original)
      return problem(req, res, original.code, 400, original.detail, original.facts?.parameter);
    const deps = current();
    const host = deps.config.hostsByName.get(original.host);
    if (host === undefined)
      return problem(
        req,
        res,
        'unknown_host',
        404,
        `No configured host is named ${JSON.stringify(original.host)}: forward auth matches X-Forwarded-Host ` +
          '(else Host) against the hosts[].name of the config.',
        'header:x-forwarded-host',
      );
    const ctx = new RequestContext(deps, host, req, res, original.url, original.method);
    ctx.cannedAnswers = false; // D40: an allowed test key would reach the backend
    try {
      const refusal = await decide(ctx);
      if (refusal === null) allow(ctx);
      else deliver(req, res, withHeaders(refusalAnswer(ctx, refusal), refusal.headers), ctx.requestId);
    } catch (err) {
      const store = err instanceof StoreFault;
      logger.error(
        { err: store ? err.message : err, requestId: ctx.requestId },
        'forward auth: decision failed',
      );
      const code = store ? 'store_unavailable' : 'internal';
      deliver(req, res, refusalAnswer(ctx, { code, detail: MESSAGES[code] }), ctx.requestId);
    } finally {
      const line = ctx.line;
      line.status = res.statusCode;
      line.ms = Math.round((performance.now() - ctx.started) * 100) / 100;
      logger.info(line, 'forward auth');
      deps.metrics.request(ctx.host, line.identity, ctx.outcome, line.ms);
    }
  };

  /** The proxy reports that the backend failed (D11 through D38): release if still held; answer the failure. */
  const release = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const id = req.headers[ADMISSION_HEADER];
    if (typeof id !== 'string' || !ID.test(id))
      return problem(
        req,
        res,
        'invalid_parameter',
        400,
        `The release route needs the ${ADMISSION_HEADER} header of the admission's 200 answer.`,
        `header:${ADMISSION_HEADER}`,
      );
    const result = pending === null ? { released: false as const } : await pending.release(id);
    const upstream = Number(req.headers['x-geogate-upstream-status']);
    const code: GatewayCode = upstream === 504 ? 'backend_timeout' : 'backend_unavailable';
    const requestId = requestIdOf(req.socket, req.headers, current().config.trustProxy);
    logger.info({ released: result.released, requestId }, 'forward auth: failure reported');
    const adapter = result.released ? result.host.adapter : NATIVE;
    const detail = result.released ? `${MESSAGES[code]} This request was not charged.` : MESSAGES[code];
    const answer = adapter.renderError(null, code, detail, { requestId });
    deliver(req, res, withHeaders(answer, { 'x-geogate-released': String(result.released) }), requestId);
  };

  /** Answer a sealed refusal as it was rendered. */
  const refusal = (req: IncomingMessage, res: ServerResponse): void => {
    const value = req.headers['x-geogate-refusal'];
    const opened = typeof value === 'string' ? seal.open(value) : null;
    if (opened === null)
      return problem(
        req,
        res,
        'invalid_parameter',
        400,
        'X-Geogate-Refusal is missing or was not sealed by this deployment.',
        'header:x-geogate-refusal',
      );
    opened.headers['content-length'] = String(Buffer.byteLength(opened.body, 'utf8'));
    res.writeHead(opened.status, opened.headers).end(opened.body, 'utf8');
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!trustedConnection(req.socket, current().config.trustProxy))
      return problem(
        req,
        res,
        'untrusted_proxy',
        403,
        'Forward auth answers the trusted proxies (trustProxy) only.',
      );
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === ADMIT_PATH || (fa.request === 'path' && path.startsWith(`${ADMIT_PATH}/`)))
      return admit(req, res);
    if (path === '/v1/release') {
      if (req.method === 'POST') return release(req, res);
      res.setHeader('allow', 'POST');
      return problem(req, res, 'method_not_allowed', 405, 'The release route takes POST.');
    }
    if (path === '/v1/refusal') return refusal(req, res);
    return problem(req, res, 'not_found', 404, 'Forward auth serves /v1/admit, /v1/release and /v1/refusal.');
  };

  return {
    handle(req, res) {
      route(req, res).catch((err: unknown) => {
        logger.error({ err }, 'forward auth: handler failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      });
    },
    get held() {
      return pending?.size ?? 0;
    },
    close() {
      pending?.close();
    },
  };
}

/** An answer with extra headers (quota, Allow) added to the adapter's own. */
function withHeaders(
  a: AdapterResponse,
  extra: Readonly<Record<string, string>> = NO_HEADERS,
): AdapterResponse {
  if (extra === NO_HEADERS) return a;
  const headers: Record<string, string> = { ...a.headers };
  for (const k in extra) headers[k] = extra[k] as string;
  return { status: a.status, headers, body: a.body };
}
