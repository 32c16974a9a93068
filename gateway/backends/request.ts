/**
 * The path and query sent to a named backend for a translated call (D25): its URL prefix, the connector's request,
 * then the operator's own query parameters. Hints (zoom, language) are read from the client's request, never its
 * credentials: only `zoom` and `accept-language` are looked at.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { BackendCall } from '../../adapters/types';
import type { CompiledBackend } from '../config/backends';
import type { CallHints } from './types';

const NO_HINTS: CallHints = Object.freeze({});

/** The hints of a request: `zoom` (0..18) and `accept-language` (query parameter, else header), when sent. */
export function callHints(url: string, headers: IncomingHttpHeaders): CallHints {
  const q = url.indexOf('?');
  const params = q < 0 ? null : new URLSearchParams(url.slice(q + 1));
  const hints: CallHints = {};
  const zoom = params?.get('zoom');
  if (zoom != null && /^\d{1,2}$/.test(zoom) && Number(zoom) <= 18) hints.zoom = Number(zoom);
  const lang = params?.get('accept-language') ?? headers['accept-language'];
  // A language list is letters, digits, "-", ",", ";", "=", "." and spaces; anything else is not passed on.
  if (typeof lang === 'string' && lang !== '' && lang.length <= 100 && /^[A-Za-z0-9,;=.\s*-]+$/.test(lang))
    hints.language = lang;
  return hints.zoom === undefined && hints.language === undefined ? NO_HINTS : hints;
}

/** Whether a kind uses hints (only the translating kinds other than geogate). */
export function usesHints(b: CompiledBackend): boolean {
  return b.kind === 'nominatim' || b.kind === 'photon' || b.kind === 'pelias';
}

/** The backend request path: prefix + the connector's request + the operator's query parameters. */
export function backendRequestPath(b: CompiledBackend, call: BackendCall, hints: CallHints): string {
  const path = b.prefix + b.connector.request(call, hints);
  if (b.query === '') return path;
  return path + (path.includes('?') ? '&' : '?') + b.query;
}
