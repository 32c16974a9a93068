/**
 * The request path (STYLE.md): match host → client address → credential → identify → admit → forward → settle →
 * render. Each step is a small function; refusals are values, faults are thrown and answered 503/500.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AdapterResponse, BackendCall } from '../../adapters/types';
import type { Clock } from '../core/clock';
import type { ErrorFacts, GatewayCode } from '../core/errors';
import type { CompiledConfig, CompiledHost } from '../config/compile';
import { clientAddress, InvalidForwarded } from '../net/client-address';
import { findCredential } from '../policy/credentials';
import { identify, isRefusal, type Identity } from '../policy/identity';
import { planAdmission } from '../policy/planner';
import type { AdmissionResult, Store, Ticket } from '../store/types';
import type { BackendOutcome, Forwarder } from './backend';
import { CORS_HEADERS, PREFLIGHT_HEADERS, quotaHeaders } from './headers';
import { describeRefusal } from './refusals';
import { isStoreUnavailable } from './store-faults';
import { adapterRequest, flatHeaders, isFormBody, parseForm, readBody, splitUrl } from './request';

export interface PipelineDeps {
  config: CompiledConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
  forward: Forwarder;
}

/** The per-request log line (never the query string, never a key). */
interface LogLine {
  method: string;
  path: string;
  host: string;
  status: number;
  identity: Identity['kind'] | 'none';
  keyId: string | null;
  ms: number;
}

/** The store is unreachable: answered 503 store_unavailable (or served uncounted when onStoreFailure is open). */
class StoreFault extends Error {}

/** Run a store call; an unreachable store becomes a StoreFault, any other error (a bug) propagates as a 500. */
async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isStoreUnavailable(err)) throw new StoreFault((err as Error).message);
    throw err;
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST']);

/** The gateway's request handler for one host. */
export type HostHandler = (host: CompiledHost, req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Build the request handler. */
export function createPipeline(deps: PipelineDeps): HostHandler {
  const { config, store, clock, logger } = deps;
  const rules = config.rules;

  return async function handle(host, req, res) {
    const started = performance.now();
    const { path: rawPath, query } = splitUrl(req.url ?? '/');
    const line: LogLine = {
      method: req.method ?? 'GET',
      path: rawPath,
      host: host.label,
      status: 0,
      identity: 'none',
      keyId: null,
      ms: 0,
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let state: any = null;

    /** Write an adapter response with CORS and extra headers. */
    const send = (r: AdapterResponse, extra: Record<string, string> = {}): void => {
      if (res.headersSent) return;
      res.writeHead(r.status, {
        ...CORS_HEADERS,
        'cache-control': 'no-store',
        ...r.headers,
        ...extra,
        'content-length': String(Buffer.byteLength(r.body, 'utf8')),
      });
      // The body stays a string: Node appends it to the header block, so no Buffer copy of it is made.
      res.end(r.body, 'utf8');
    };
    /** Render a gateway error through the host's adapter (D20, D24). */
    const fail = (
      code: GatewayCode,
      detail: string,
      facts: ErrorFacts = {},
      extra: Record<string, string> = {},
    ): void => send(host.adapter.renderError(state, code, detail, facts), extra);

    try {
      await run();
    } catch (err) {
      if (err instanceof StoreFault) {
        logger.error({ err: err.message }, 'store unavailable');
        fail('store_unavailable', 'The service is temporarily unavailable. Try again shortly.');
      } else {
        logger.error({ err }, 'request failed');
        fail('internal', 'An internal error occurred.');
      }
    } finally {
      line.status = res.statusCode;
      line.ms = Math.round((performance.now() - started) * 100) / 100;
      logger.info(line, 'request');
    }

    async function run(): Promise<void> {
      const method = line.method;
      if (method === 'OPTIONS') {
        res.writeHead(204, PREFLIGHT_HEADERS);
        res.end();
        return;
      }
      if (!METHODS.has(method)) {
        return fail(
          'method_not_allowed',
          `Method ${method} is not allowed.`,
          {},
          { allow: 'GET, HEAD, POST, OPTIONS' },
        );
      }
      const body = await readBody(req);
      if (body === 'too_large')
        return fail('invalid_parameter', 'The request body is too large.', { parameter: 'body' });
      const formText = isFormBody(req) ? body.toString('utf8') : null;
      const form = formText === null ? null : parseForm(formText);
      if (formText !== null && form === null) {
        return fail('invalid_parameter', 'The form body is not valid percent-encoding.', {
          parameter: 'body',
        });
      }
      let path: string;
      try {
        path = decodeURIComponent(rawPath);
      } catch {
        return fail('invalid_parameter', 'The path is not valid percent-encoding.', { parameter: 'path' });
      }
      const headers = flatHeaders(req);
      const areq = adapterRequest(method, path, query, headers, formText, host.adapter.credentialParams);
      const parsed = host.adapter.parse(areq);
      if (parsed === null) return fail('not_found', 'There is no endpoint at this path.');
      if (!parsed.ok) {
        state = parsed.state ?? null;
        return fail(parsed.code, parsed.detail, parsed.facts ?? {});
      }
      state = parsed.request.state;

      const address = clientAddress(
        req.socket.remoteAddress,
        req.headers,
        config.trustProxy,
        config.trustProxyHeader,
      );
      if (!address) throw new Error('the connection has no peer address');
      if (address instanceof InvalidForwarded) {
        // D3a: a trusted proxy passed an entry naming no address; refused, never counted against the proxy.
        const { header, entry } = address;
        logger.warn({ peer: req.socket.remoteAddress, header, entry }, 'invalid forwarded entry');
        return fail('invalid_forwarded', `The ${header} header names no valid client address.`, {
          parameter: header,
        });
      }
      let call: BackendCall = parsed.request.call;
      if (call.kind === 'ipv4' && call.ip === null) {
        if (address.kind() !== 'ipv4') {
          return fail('ipv4_required', 'The caller is on IPv6: pass an IPv4 address in the "ip" parameter.', {
            parameter: 'ip',
          });
        }
        call = { kind: 'ipv4', ip: address.toString() };
      }

      const credential = findCredential(
        areq,
        rules.credentialPositions,
        host.adapter.providerCredentials(areq),
        form,
      );
      if (credential.kind === 'conflict') {
        return fail(
          'conflicting_credentials',
          `Different keys were sent in ${credential.positions.join(', ')}.`,
          {
            parameter: credential.positions.join(', '),
          },
        );
      }

      let identity: Identity;
      let admitted: Extract<AdmissionResult, { admitted: true }> | null = null;
      let now = clock.now();
      try {
        const found = await storeCall(() =>
          identify({
            rules,
            store,
            pepper: config.keyPepper,
            credential,
            address,
            anonymousAllowed: host.anonymous,
          }),
        );
        if (isRefusal(found)) return fail(found.code, found.detail);
        identity = found;
        line.identity = identity.kind;
        line.keyId = identity.kind === 'key' ? identity.key.id : null;

        now = clock.now();
        const plan = planAdmission({ rules, identity, address, now, id: `adm_${randomUUID()}` });
        const result = await storeCall(() => store.admit(plan));
        if (!result.admitted) {
          store
            .recordRefusal(plan.usage, plan.day)
            .catch((err: unknown) => logger.warn({ err }, 'recordRefusal failed'));
          const { detail, facts } = describeRefusal(result.code, plan, result.nextSlotFreeAt);
          return fail(
            result.code,
            detail,
            facts,
            quotaHeaders(rules, result.quota, now, result.code === 'quota_exceeded'),
          );
        }
        admitted = result;
      } catch (err) {
        // onStoreFailure: open serves the request uncounted while the store is down (issue 4).
        if (!(err instanceof StoreFault) || config.onStoreFailure !== 'open') throw err;
        logger.warn({ err: err.message }, 'store unavailable: serving uncounted (onStoreFailure: open)');
      }

      const extra = admitted ? quotaHeaders(rules, admitted.quota, now, false) : {};
      const outcome = await deps.forward(req, res, call);
      await settle(outcome, call, admitted?.ticket ?? null, extra);
    }

    /** Keep the charge for an answer the backend gave; release it for anything else (D11). */
    async function settle(
      outcome: BackendOutcome,
      call: BackendCall,
      ticket: Ticket | null,
      extra: Record<string, string>,
    ): Promise<void> {
      const release = async (): Promise<void> => {
        if (!ticket) return;
        await store.release(ticket).catch((err: unknown) => logger.error({ err }, 'release failed'));
      };
      if (outcome.kind === 'client_gone') {
        // Nothing was delivered, so nothing is charged (D11's spirit: only answers given are paid).
        await release();
        return;
      }
      if (outcome.kind === 'timeout') {
        await release();
        return fail('backend_timeout', 'The geocoding backend did not answer in time.', {}, extra);
      }
      if (outcome.kind === 'unavailable') {
        await release();
        logger.warn({ reason: outcome.reason }, 'backend unavailable');
        return fail('backend_unavailable', 'The geocoding backend is unavailable.', {}, extra);
      }
      const json = parseJson(outcome.body);
      if (outcome.status === 200 && json !== null) {
        const r =
          call.kind === 'reverse'
            ? host.adapter.renderReverse(state, json as never)
            : host.adapter.renderIp(state, json as never);
        return send(r, extra);
      }
      if (outcome.status === 404) {
        // D11: "no result found" is an answer the backend gave, so it stays charged.
        return fail('not_found', describeBackend(json) ?? 'No result found.', {}, extra);
      }
      await release();
      if (outcome.status === 400) {
        const parameter = typeof json?.['parameter'] === 'string' ? json['parameter'] : undefined;
        return fail(
          'invalid_parameter',
          describeBackend(json) ?? 'The request was rejected as malformed.',
          parameter === undefined ? {} : { parameter },
          extra,
        );
      }
      logger.warn({ status: outcome.status }, 'backend error');
      return fail('backend_unavailable', 'The geocoding backend failed.', {}, extra);
    }
  };
}

/** The backend's JSON object, or null. */
function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The backend problem's public detail, if any. */
function describeBackend(json: Record<string, unknown> | null): string | undefined {
  const d = json?.['detail'];
  return typeof d === 'string' ? d : undefined;
}
