/** Helpers for building ParseResult values and the error tables every adapter exports (D24). */
import type { ErrorFacts, GatewayCode } from '../../gateway/core/errors';
import type { AdapterRequest, ParseResult } from '../types';
import type { Query } from './query';
import { single } from './query';

/** One row per gateway code: an adapter's D24 mapping to its provider's error. */
export type ErrorTable<E> = { readonly [C in GatewayCode]: E };

/** A malformed-request result naming the offending parameter. */
export function refuse(code: GatewayCode, parameter: string, detail: string): ParseResult<never> {
  const facts: ErrorFacts = { parameter };
  return { ok: false, code, detail, facts };
}

/** Drop-in hosts serve reads only: GET (and HEAD, which the HTTP layer answers without a body). */
export function methodRefusal(req: AdapterRequest): ParseResult<never> | undefined {
  const m = req.method.toUpperCase();
  return m === 'GET' || m === 'HEAD'
    ? undefined
    : { ok: false, code: 'method_not_allowed', detail: `method ${m} is not allowed; use GET`, facts: {} };
}

/** Reads a parameter that must appear at most once; a repeat is a refusal naming it. */
export function once(
  q: Query,
  name: string,
): { value: string | undefined } | { refusal: ParseResult<never> } {
  const s = single(q, name);
  if (s.kind === 'repeated')
    return { refusal: refuse('invalid_parameter', name, `${name} must be given once`) };
  return { value: s.kind === 'one' ? s.value : undefined };
}

/**
 * The path a host routes on: one trailing slash dropped, since clients add it where the provider tolerates it
 * (geopy's Mapbox sends `/geocoding/v5/mapbox.places/{lon},{lat}.json/`). The pipeline has decoded the path once,
 * so percent-encoded separators (`%2C`) arrive as themselves.
 */
export function routePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** One request form a drop-in host accepts (issue 16 item 1): an example as a client sends it, and who sends it. */
export interface RequestForm {
  /** Path and query, e.g. "/geocoding/v5/mapbox.places/2.2945%2C48.8584.json/?access_token=K". */
  example: string;
  /** The clients known to send it (documentation, not checked). */
  clients: string;
}
