/**
 * D38: the original request an edge proxy asks forward auth about, read from the one form the operator named (D3a's
 * rule: the other form is ignored whatever it says, so a client cannot add a second, unchecked opinion). Read only
 * after the peer was found to be a trusted proxy (forward-auth.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { ForwardAuthConfig } from '../config/compile';
import type { Refusal } from './context';

/** The request line and host the proxy reported. */
export interface OriginalRequest {
  method: string;
  /** Origin-form request target: path and query, still percent-encoded. */
  url: string;
  /** The host name it was sent to, lower-case, without port. */
  host: string;
}

/** The decision route; in `path` mode the original path follows it (Envoy's ext_authz `path_prefix`). */
export const ADMIT_PATH = '/v1/admit';

/** The longest original request target read (nginx's default large header buffer is 8 KiB). */
const MAX_URI = 8192;
const METHOD = /^[A-Z]{1,16}$/;
/** An origin-form target (RFC 9112 3.2.1): "/" then visible ASCII without "#". */
const ORIGIN_FORM = /^\/[\x21-\x22\x24-\x7e]*$/;

const HEADERS = {
  'x-original': { uri: 'x-original-uri', method: 'x-original-method' },
  'x-forwarded': { uri: 'x-forwarded-uri', method: 'x-forwarded-method' },
} as const;

/** A 400 naming the header at fault. */
function invalid(header: string, detail: string): Refusal {
  return { code: 'invalid_parameter', detail, facts: { parameter: `header:${header}` } };
}

/** One header's value; a repeated header is refused by the caller (null here means absent). */
function single(req: IncomingMessage, name: string): string | undefined | 'repeated' {
  const v = req.headers[name];
  return Array.isArray(v) ? 'repeated' : v;
}

/** The host name of a Host or X-Forwarded-Host value: the last list entry (the nearest proxy's), no port. */
export function hostNameOf(value: string): string {
  const comma = value.lastIndexOf(',');
  const h = (comma < 0 ? value : value.slice(comma + 1)).trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** The original request, or a 400 refusal naming what the proxy sent wrong. */
export function readOriginal(
  req: IncomingMessage,
  mode: ForwardAuthConfig['request'],
): OriginalRequest | Refusal {
  let url: string | undefined | 'repeated';
  let method: string | undefined | 'repeated';
  let uriHeader: string;
  if (mode === 'path') {
    const target = req.url ?? '/';
    url = target.slice(ADMIT_PATH.length);
    if (url === '' || url.startsWith('?')) url = `/${url}`;
    method = req.method;
    uriHeader = 'path';
  } else {
    const names = HEADERS[mode];
    uriHeader = names.uri;
    url = single(req, names.uri);
    method = single(req, names.method) ?? req.method;
    if (method === 'repeated') return invalid(names.method, `The proxy sent ${names.method} twice.`);
  }
  if (url === undefined)
    return invalid(uriHeader, `The proxy did not send ${uriHeader}: the original request is unknown.`);
  if (url === 'repeated') return invalid(uriHeader, `The proxy sent ${uriHeader} twice.`);
  if (url.length > MAX_URI || !ORIGIN_FORM.test(url))
    return invalid(
      uriHeader,
      `${uriHeader} is not an origin-form request target ("/path?query", visible ASCII, at most ${MAX_URI} characters).`,
    );
  if (method === undefined || !METHOD.test(method))
    return invalid(
      mode === 'path' ? 'method' : HEADERS[mode].method,
      'The original method is not a method name.',
    );
  const forwardedHost = single(req, 'x-forwarded-host');
  if (forwardedHost === 'repeated')
    return invalid('x-forwarded-host', 'The proxy sent X-Forwarded-Host twice.');
  const hostHeader = forwardedHost ?? req.headers.host;
  const host = hostHeader === undefined ? '' : hostNameOf(hostHeader);
  if (host === '')
    return invalid(
      'x-forwarded-host',
      'The proxy named no host (X-Forwarded-Host or Host) for the original request.',
    );
  return { method, url, host };
}
