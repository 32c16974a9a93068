/**
 * The one typed context a request carries through the stages of the pipeline (docs/gateway.md, "Where things
 * live"). A stage reads what the stages before it set, sets its own product, and returns a refusal value or null.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AccountRequest, AdapterRequest, BackendCall, BulkRequest, Rate } from '../../adapters/types';
import type { CompiledBackend, CompiledConfig, CompiledHost, PassthroughRoute } from '../config/compile';
import type { Clock } from '../core/clock';
import type { ErrorFacts, GatewayCode } from '../core/errors';
import type { GatewayMetrics, Outcome } from '../metrics/gateway-metrics';
import type { IpAddress } from '../net/address';
import type { RefusalNotes } from './refusal-log';
import { requestIdOf } from '../net/request-id';
import type { CredentialResult } from '../policy/credentials';
import type { Identity } from '../policy/identity';
import type { AdmissionStore } from '../store/ports';
import type { Ticket } from '../store/types';
import type { AllowanceObserver } from '../notify/allowance';
import type { BurstLimiter } from '../policy/burst';
import type { Forwarder } from './backend';
import type { PassthroughProxy } from './passthrough-proxy';

/** What the pipeline is built from. */
export interface PipelineDeps {
  config: CompiledConfig;
  store: AdmissionStore;
  clock: Clock;
  logger: Logger;
  forward: Forwarder;
  /** The instance's metrics (issue 14 item 1). */
  metrics: GatewayMetrics;
  /** D26: the streaming transport of passthrough routes, one per backend (absent: the config has no route). */
  passthrough?: { of(b: CompiledBackend): PassthroughProxy };
  /** Allowance alerts (D30): told each keyed or whitelisted admission's quota; absent when notifications are off. */
  allowance?: AllowanceObserver;
  /** Recent refusals of identified callers (the operator console); absent: not recorded. */
  refusals?: RefusalNotes;
  /** The process's burst windows (policy/burst.ts), kept across reloads; the limits are `config.burst`. */
  burst?: BurstLimiter;
}

/** A refusal is a value a stage returns (STYLE.md); the render stage answers it in the host's shape. */
export interface Refusal {
  code: GatewayCode;
  detail: string;
  facts?: ErrorFacts;
  /** Extra answer headers (Allow, quota headers). */
  headers?: Readonly<Record<string, string>>;
}

/** The per-request log line (never the query string, never a key). Its field order is the log's. */
export interface LogLine {
  method: string;
  path: string;
  host: string;
  status: number;
  identity: Identity['kind'] | 'none';
  keyId: string | null;
  ms: number;
  /** The request id (issue 14 item 2; `log.requestId`, default on); always in the header and error bodies. */
  requestId?: string;
}

/**
 * What a stage returns when it has sent the answer itself (a test key's canned success, D40): the pipeline renders
 * nothing more. Compared by identity; its code is never shown.
 */
export const ANSWERED: Refusal = Object.freeze({ code: 'internal', detail: 'answered by the stage' });

/** No extra headers (shared, never written to). */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** One request on its way through the stages. Fields marked "set by" are assigned before any later stage reads them. */
export class RequestContext {
  readonly started = performance.now();
  readonly line: LogLine;
  /** A trusted proxy's X-Request-Id/traceparent, else generated; written on every answer (X-Request-Id). */
  readonly requestId: string;
  /** The raw (still percent-encoded) path and the query string without "?". */
  readonly rawPath: string;
  readonly query: string;
  /** The adapter's private state (format, language...) for rendering; null until the adapter parsed it. */
  state: unknown = null;
  /** Set by parse: the adapter's view of the request, the form fields (D2a) and the backend call. */
  areq!: AdapterRequest;
  form: Map<string, string[]> | null = null;
  call!: BackendCall;
  /** Set by parse instead of `call` for a provider's account endpoint (issue 16 item 4): answered, never counted. */
  account: AccountRequest | null = null;
  /** Set by the passthrough stage (D26) for a request on a passthrough route: it has no translated call. */
  passthrough: PassthroughRoute | null = null;
  /** Set by parse for a bulk call (ipstack `/{ip1},{ip2}`, ipinfo `/batch`): N lookups, served by stages/bulk.ts. */
  bulk: BulkRequest | null = null;
  /** Set by client-address: the client address (D3). */
  address!: IpAddress;
  /** Set by credential: what the request carries (never a conflict past that stage). */
  credential!: Exclude<CredentialResult, { kind: 'conflict' }>;
  /** Set by identify. */
  identity!: Identity;
  /** Set by admit: the admission to release if the answer is not charged (D11), and its quota headers (D21). */
  ticket: Ticket | null = null;
  quota: Readonly<Record<string, string>> = NO_HEADERS;
  /** Set by admit on hosts that show the free allowance in their answers (OpenCage `rate`). */
  rate: Rate | null = null;
  /** What the request ended with, for the metrics: set by render's `fail` and by the pipeline (client gone). */
  outcome: Outcome = 'ok';
  /**
   * Whether a test key's success may be answered here with a canned record (D40). False on the forward-auth listener
   * (D38): its 2xx lets the edge proxy forward the request to the backend, so a test key's success is refused there.
   */
  cannedAnswers = true;

  constructor(
    readonly deps: PipelineDeps,
    readonly host: CompiledHost,
    readonly req: IncomingMessage,
    /** Where the answer goes; the library's `admit` (gateway/lib/admit.ts) sets it when its decision is replied. */
    public res: ServerResponse,
    /** The request line as the client sent it; forward auth (D38) passes the original one its proxy reported. */
    url = req.url ?? '/',
    method = req.method ?? 'GET',
  ) {
    const q = url.indexOf('?');
    this.rawPath = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    // Not set on `res` here: every answer path writes it with its own headers (render's send, preflight,
    // passthrough, the pipeline's last resort), so writeHead keeps Node's fast path (stages/render.ts).
    this.requestId = requestIdOf(req.socket, req.headers, deps.config.trustProxy);
    this.line = {
      method,
      path: this.rawPath,
      host: host.label,
      status: 0,
      identity: 'none',
      keyId: null,
      ms: 0,
    };
    if (deps.config.logRequestId) this.line.requestId = this.requestId;
  }
}
