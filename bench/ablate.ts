/**
 * Ablations for `npm run bench:gateway` (issue 12: `BENCH_ABLATE`). Preloaded into a gateway process with
 * `node --require dist/bench/ablate.js`; `GG_ABLATE` names the stages to replace, joined by "+":
 * - `admit`: the plan + admit stage answers "admitted" without planning or calling the store (no ticket, so settle
 *   keeps and releases nothing; no quota headers);
 * - `render`: the record stage hands the backend's bytes on as the answer (no connector read, no JSON parse, no
 *   adapter rendering);
 * - `metrics`: the request, admission and backend-latency observations do nothing.
 * It replaces the compiled modules' exported functions (the pipeline calls them through their module objects), so the
 * build under test is otherwise unchanged. For measurement only: an ablated gateway neither counts nor checks.
 */
import type { AdapterResponse } from '../adapters/types';
import type { RequestContext } from '../gateway/http/context';
import type { BackendOutcome } from '../gateway/http/backend';
import type { ReadAnswer } from '../gateway/http/stages/record';
import * as admit from '../gateway/http/stages/admit';
import * as record from '../gateway/http/stages/record';
import { GatewayMetrics } from '../gateway/metrics/gateway-metrics';

const PARTS = new Set(['admit', 'render', 'metrics']);

/** The parts named by `spec` ("admit+render"); throws on an unknown one. */
export function ablatedParts(spec: string): Set<string> {
  const parts = new Set(spec.split('+').filter((p) => p !== ''));
  for (const p of parts)
    if (!PARTS.has(p)) throw new Error(`GG_ABLATE: unknown part "${p}" (known: ${[...PARTS].join(', ')})`);
  return parts;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

/** Replace the named parts in this process. */
export function ablate(parts: Set<string>): void {
  // Why the casts: the compiled CommonJS modules' exports are plain writable properties; the TypeScript view of an
  // imported namespace is read-only.
  const writable = (m: object) => m as Record<string, unknown>;
  if (parts.has('admit')) {
    writable(admit)['admitRequest'] = async (ctx: RequestContext) => {
      ctx.ticket = null;
      return null;
    };
  }
  if (parts.has('render')) {
    writable(record)['readAnswer'] = (_ctx: RequestContext, outcome: BackendOutcome): ReadAnswer => {
      if (outcome.kind !== 'answer') return { kind: outcome.kind, record: null };
      // The body goes out as the Buffer it came in (send() accepts it: byteLength and end take either).
      const answer = { status: outcome.status, headers: JSON_HEADERS, body: outcome.body };
      return {
        kind: outcome.status === 200 ? 'record' : 'failed',
        record: answer as unknown as AdapterResponse,
      };
    };
  }
  if (parts.has('metrics')) {
    const proto = GatewayMetrics.prototype as unknown as Record<string, unknown>;
    for (const m of ['request', 'admission', 'backendAnswered']) proto[m] = () => {};
  }
}

const spec = process.env['GG_ABLATE'];
if (spec !== undefined && spec !== '') ablate(ablatedParts(spec));
