/**
 * The library's low-level admission for custom flows: `admit(req, { units })` runs the one admission segment
 * (stages/count.ts: client address → credential → identify → plan + admit) on an incoming request and returns a
 * decision. The caller answers the request itself: `reply(res)` writes a refusal in the host's shape (or, when
 * admitted, the quota headers), and `settle(outcome)` keeps or releases the admission by D11 once the caller knows
 * how its work ended. The request's body is never read: a custom flow owns it, so a D2a form key is not looked for.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { CompiledHost } from '../config/compile';
import { codeToStatus, MESSAGES, type GatewayCode } from '../core/errors';
import { RequestContext, type PipelineDeps, type Refusal } from '../http/context';
import { StoreFault } from '../http/fault';
import { adapterRequest, flatHeaders } from '../http/request';
import { D11, passthroughKind, type AnswerKind } from '../http/settlement';
import { admitUnits } from '../http/stages/count';
import { refuse } from '../http/stages/render';
import { keepTicket, releaseTicket } from '../http/stages/settle';

/** How a custom flow's work ended: the HTTP status it answers with, or a D11 kind. */
export type Outcome = number | AnswerKind;

/** What `settle` did: kept (charged, counted), released (nothing charged), or nothing to settle. */
export type Settled = 'kept' | 'released' | 'none';

/** The caller an admission was decided for. */
export type Caller = 'key' | 'whitelist' | 'anonymous';

/** An admission decision. */
export interface Decision {
  /** Whether the request may be served. */
  readonly admitted: boolean;
  /** The refusal's code (null when admitted). */
  readonly code: GatewayCode | null;
  /** The main host's status for the refusal (200 when admitted); `reply` renders the host's own. */
  readonly status: number;
  /** Who the request was counted to (null when refused before identification). */
  readonly caller: Caller | null;
  /** The key's id when a key identified the caller. */
  readonly keyId: string | null;
  /** The request id (a trusted proxy's, else generated). */
  readonly requestId: string;
  /** The quota headers (D13, D21) to send with the answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** Refused: write the refusal in the host's shape. Admitted: set X-Request-Id and the quota headers, end nothing. */
  reply(res: ServerResponse): void;
  /** Keep or release the admission by D11 (a status: as a passthrough answer, 5xx released); once only. */
  settle(outcome: Outcome): Promise<Settled>;
}

/** The options of one `admit` call. */
export interface AdmitOptions {
  /** The host whose credential positions, anonymous rule and error shapes apply (default: the default host). */
  host?: string;
  /** Units the request is worth (default 1; 0: identified, not counted). */
  units?: number;
}

/** A bad argument to the library (an unknown host, a negative unit count...): thrown, naming the field. */
export class GeogateArgumentError extends TypeError {
  override readonly name = 'GeogateArgumentError';
  constructor(
    /** The option at fault, e.g. "host" or "units". */
    readonly field: string,
    message: string,
  ) {
    super(`geogate: ${field}: ${message}`);
  }
}

const STORE_DOWN: Refusal = Object.freeze({
  code: 'store_unavailable',
  detail: MESSAGES.store_unavailable,
});

/** A decision over the context the admission segment filled. */
class AdmissionDecision implements Decision {
  private settled: Settled | null = null;
  readonly status: number;

  constructor(
    private readonly ctx: RequestContext,
    private readonly refusal: Refusal | null,
  ) {
    this.status = refusal === null ? 200 : codeToStatus(refusal.code);
  }

  get admitted(): boolean {
    return this.refusal === null;
  }
  get code(): GatewayCode | null {
    return this.refusal?.code ?? null;
  }
  get caller(): Caller | null {
    return this.ctx.line.identity === 'none' ? null : this.ctx.line.identity;
  }
  get keyId(): string | null {
    return this.ctx.line.keyId;
  }
  get requestId(): string {
    return this.ctx.requestId;
  }
  get headers(): Readonly<Record<string, string>> {
    return this.refusal === null ? this.ctx.quota : (this.refusal.headers ?? {});
  }

  reply(res: ServerResponse): void {
    const ctx = this.ctx;
    ctx.res = res;
    if (this.refusal !== null) return refuse(ctx, this.refusal);
    if (res.headersSent) return;
    res.setHeader('x-request-id', ctx.requestId);
    const quota = ctx.quota;
    for (const k in quota) res.setHeader(k, quota[k] as string);
  }

  async settle(outcome: Outcome): Promise<Settled> {
    if (this.settled !== null) return this.settled;
    const keep = keeps(outcome);
    const ticket = this.ctx.ticket;
    if (ticket === null) return (this.settled = 'none');
    this.ctx.ticket = null;
    if (keep) {
      this.settled = 'kept';
      keepTicket(this.ctx, ticket);
    } else {
      this.settled = 'released';
      await releaseTicket(this.ctx, ticket);
    }
    return this.settled;
  }
}

/** D11: whether an outcome is charged; a bad outcome is thrown before anything is settled. */
function keeps(outcome: Outcome): boolean {
  if (typeof outcome === 'number') {
    if (!Number.isInteger(outcome) || outcome < 100 || outcome > 599)
      throw new GeogateArgumentError('outcome', `${outcome} is not an HTTP status (100-599)`);
    return D11[passthroughKind(outcome)].keepPassthrough;
  }
  const row = Object.hasOwn(D11, outcome) ? D11[outcome] : undefined;
  if (row === undefined)
    throw new GeogateArgumentError(
      'outcome',
      `"${String(outcome)}" is neither a status nor ${Object.keys(D11).join(', ')}`,
    );
  return row.keep;
}

/** The `admit` function of one request path. */
export function admitterFor(
  deps: PipelineDeps,
  hostOf: (name: string | undefined) => CompiledHost,
): (req: IncomingMessage, options?: AdmitOptions) => Promise<Decision> {
  // The context's response until `reply` sets the caller's: never written, since the segment only reads the request.
  const unanswered = new ServerResponse(new IncomingMessage(new Socket()));
  return async (req, options = {}) => {
    const host = hostOf(options.host);
    const units = options.units ?? 1;
    if (!Number.isSafeInteger(units) || units < 0)
      throw new GeogateArgumentError('units', `${String(units)} is not a whole number of units (0 or more)`);
    const ctx = new RequestContext(deps, host, req, unanswered);
    ctx.areq = adapterRequest(
      ctx.line.method,
      ctx.rawPath,
      ctx.query,
      flatHeaders(req),
      null,
      host.adapter.credentialParams,
    );
    let refusal: Refusal | null;
    try {
      refusal = await admitUnits(ctx, units);
    } catch (err) {
      if (!(err instanceof StoreFault)) throw err;
      deps.logger.error({ err: err.message, requestId: ctx.requestId }, 'store unavailable');
      refusal = STORE_DOWN;
    }
    return new AdmissionDecision(ctx, refusal);
  };
}
