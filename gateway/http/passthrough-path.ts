/**
 * Passthrough paths and queries (D26), pure: the path is checked before any route is matched (no dot segment, also
 * with a ";" path parameter, no encoded slash or backslash, no control character, even percent-encoded), matched
 * against the host's routes, and forwarded as received under the backend's prefix; the query loses every credential
 * parameter of the rule set and of the host's adapter (names compared without regard to case), then gets the
 * operator's own parameters.
 */
import type { CompiledBackend, PassthroughRoute } from '../config/backends';
import { decodeComponent } from '../core/query';

/** Why a path is refused (400 invalid_parameter, parameter "path"). */
export const UNSAFE_PATH =
  'The path may not contain "." or ".." segments (also before a ";" parameter), encoded slashes or backslashes, ' +
  'empty segments or control characters.';

/** Whether a decoded segment holds a control character (U+0000..U+001F, U+007F). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** The decoded path when safe, else null. */
export function safePath(rawPath: string): string | null {
  if (!rawPath.startsWith('/')) return null;
  if (/%(?:2f|5c|00)/i.test(rawPath)) return null;
  const segments = rawPath.split('/').slice(1);
  const decoded: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i] as string;
    const s = decodeComponent(raw);
    if (s === null) return null;
    if (s.includes('\\') || hasControl(s)) return null;
    // Tomcat, Spring and Jetty drop a path parameter (";…", also sent as %3B) before they resolve dot segments, so
    // the segment a backend resolves is the part before ";": "..;" is "..", and ";x" alone is an empty segment.
    const semi = s.indexOf(';');
    const name = semi < 0 ? s : s.slice(0, semi);
    if (name === '.' || name === '..' || semi === 0) return null;
    // Only the last segment may be empty (a trailing slash); "//" is refused.
    if (s === '' && i !== segments.length - 1) return null;
    decoded.push(s);
  }
  return `/${decoded.join('/')}`;
}

/** The host's route for a (decoded, safe) path: an exact route first, then the longest matching prefix. */
export function matchRoute(routes: readonly PassthroughRoute[], path: string): PassthroughRoute | null {
  let best: PassthroughRoute | null = null;
  for (const r of routes) {
    if (!r.prefix) {
      if (r.path === path) return r;
    } else if (path.startsWith(r.path) && path.length > r.path.length - (r.path === '/' ? 1 : 0)) {
      if (best === null || r.path.length > best.path.length) best = r;
    }
  }
  return best;
}

/** A query (or form body) without the named parameters, compared case-insensitively. */
export function withoutCredentials(query: string, names: ReadonlySet<string>): string {
  if (query === '') return query;
  return query
    .split('&')
    .filter((part) => {
      if (part === '') return false;
      const eq = part.indexOf('=');
      const name = decodeComponent((eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
      // An undecodable name is dropped too: it could be a credential in disguise.
      return name !== null && !names.has(name.toLowerCase());
    })
    .join('&');
}

/** The backend URL of a passthrough request: prefix + path as received + the cleaned query + the operator's query. */
export function passthroughUrl(b: CompiledBackend, rawPath: string, cleanQuery: string): string {
  const q = [cleanQuery, b.query].filter((s) => s !== '').join('&');
  return `${b.prefix}${rawPath}${q === '' ? '' : `?${q}`}`;
}

/** Request headers passed to the backend: content negotiation and caching only, never credentials or cookies. */
const PASSED_HEADERS = [
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'user-agent',
  'if-none-match',
  'if-modified-since',
];

/** The headers of a passthrough request: the allowlisted client headers, the operator's, the request id. */
export function passthroughHeaders(
  incoming: Readonly<Record<string, string | string[] | undefined>>,
  b: CompiledBackend,
  requestId: string | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const v = incoming[name];
    if (typeof v === 'string') out[name] = v;
  }
  Object.assign(out, b.headers);
  if (requestId !== null) out['x-request-id'] = requestId;
  return out;
}
