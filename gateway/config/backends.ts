/**
 * D25/D26 at start: the named backends compiled once (URL prefix kept, operator headers and query parameters ready to
 * send), each host's reverse and IP backend looked up, its passthrough routes compiled, and every inconsistency refused
 * naming the file's path, the host and the field.
 */
import { CONNECTORS, type Connector } from '../backends';
import type { BackendKind, RawConfig } from './schema';

/** A backend ready to forward to. */
export interface CompiledBackend {
  name: string;
  kind: BackendKind;
  connector: Connector;
  /** The origin and the path prefix kept from the URL ("/nominatim" for `http://h/nominatim/`; "" for `http://h/`). */
  url: URL;
  prefix: string;
  timeoutMs: number;
  passRequestId: boolean;
  /** Headers added to every request (lower-case names); never the client's. */
  headers: Readonly<Record<string, string>>;
  /** `k=v&k2=v2` added to every request's query (encoded), or "". */
  query: string;
  /** D26: passthrough answers streamed at once (the sockets of its passthrough pool); more wait for one. */
  passthroughConnections: number;
}

/** One passthrough route (D26). */
export interface PassthroughRoute {
  /** The pattern as written ("/search", "/v1/*"). */
  pattern: string;
  /** Exact path, or the prefix (ending in "/") a `/*` pattern matches. */
  path: string;
  prefix: boolean;
  methods: ReadonlySet<string>;
  /** Requests counted per forwarded request (0: not counted). */
  cost: number;
  /** The whole answer's deadline (request to last byte); a status line later than this is a timeout. */
  deadlineMs: number;
  /** Response headers passed besides the allowlist (lower-case). */
  responseHeaders: ReadonlySet<string>;
}

/** The name the top-level `backend:` has (D25). */
export const DEFAULT_BACKEND = 'default';

/** The URL's path without its trailing slash. */
function prefixOf(url: URL): string {
  return url.pathname.replace(/\/+$/, '');
}

/** What a backend's config gives besides its name and kind. */
interface BackendFields {
  url: string;
  timeoutMs: number;
  passthroughConnections: number;
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** Compile one backend. */
function compileBackend(
  name: string,
  kind: BackendKind,
  passRequestId: boolean,
  { url, timeoutMs, passthroughConnections, headers, query }: BackendFields,
): CompiledBackend {
  const u = new URL(url);
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v;
  return {
    name,
    kind,
    connector: CONNECTORS[kind],
    url: u,
    prefix: prefixOf(u),
    timeoutMs,
    passRequestId,
    headers: h,
    query: new URLSearchParams(query).toString(),
    passthroughConnections,
  };
}

/** Every backend of the config by name: `default` (the top-level `backend:`, when given) and the `backends:` entries. */
export function compileBackends(raw: RawConfig): Map<string, CompiledBackend> {
  const out = new Map<string, CompiledBackend>();
  const b = raw.backend;
  if (b.url !== '')
    out.set(
      DEFAULT_BACKEND,
      compileBackend(DEFAULT_BACKEND, 'geogate', b.passRequestId, { ...b, headers: {}, query: {} }),
    );
  for (const [name, e] of Object.entries(raw.backends)) {
    if (out.has(name)) continue;
    out.set(name, compileBackend(name, e.kind, e.passRequestId ?? e.kind === 'geogate', e));
  }
  return out;
}

/** The name of a host's reverse backend. */
export function reverseBackendName(h: RawConfig['hosts'][number]): string {
  return h.backend ?? DEFAULT_BACKEND;
}

/**
 * The name of a host's IP backend: `ipBackend`, else its backend when that answers IP lookups, else `default` when that
 * does; null when none does (IP calls on that host are answered not_found, never counted).
 */
export function ipBackendName(
  h: RawConfig['hosts'][number],
  backends: Map<string, CompiledBackend>,
): string | null {
  if (h.ipBackend !== undefined) return h.ipBackend;
  const own = backends.get(reverseBackendName(h));
  if (own?.connector.ip) return own.name;
  return backends.get(DEFAULT_BACKEND)?.connector.ip ? DEFAULT_BACKEND : null;
}

/** Compile a host's passthrough routes. */
export function compileRoutes(routes: RawConfig['hosts'][number]['passthrough']): PassthroughRoute[] {
  return routes.map((r) => {
    const prefix = r.path.endsWith('/*');
    return {
      pattern: r.path,
      path: prefix ? r.path.slice(0, -1) : r.path,
      prefix,
      methods: new Set(r.methods),
      cost: r.cost,
      deadlineMs: r.deadlineMs,
      responseHeaders: new Set(r.responseHeaders.map((n) => n.toLowerCase())),
    };
  });
}

/** The problems of D25/D26 as `path: message` lines (the caller adds the file). */
export function backendProblems(raw: RawConfig): string[] {
  const problems: string[] = [];
  const hasDefault = raw.backend.url !== '';
  const seen = new Map<string, string>();
  if (hasDefault) seen.set(DEFAULT_BACKEND, 'backend');
  for (const name of Object.keys(raw.backends)) {
    const first = seen.get(name.toLowerCase());
    if (first !== undefined)
      problems.push(
        `backends.${name}: the backend name "${name}" is already used by ${first}` +
          (first === 'backend' ? ' (the top-level backend: is the backend named "default")' : '') +
          '; give each backend its own name',
      );
    else seen.set(name.toLowerCase(), `backends.${name}`);
  }
  if (!hasDefault && Object.keys(raw.backends).length === 0)
    problems.push('backend: required, but missing (give a backend: { url } or a backends: section)');
  const backends = compileBackends(raw);
  const names = [...backends.keys()].join(', ') || '(none)';
  raw.hosts.forEach((h, i) => {
    const where = `hosts[${i}]`;
    const label = h.name ?? `port:${h.port}`;
    const named = h.backend ?? DEFAULT_BACKEND;
    if (!backends.has(named)) {
      problems.push(
        h.backend === undefined
          ? `${where}.backend: host "${label}" names no backend and there is no top-level backend: (the default); ` +
              `name one of: ${names}`
          : `${where}.backend: host "${label}" names an unknown backend "${named}"; configured backends: ${names}`,
      );
    }
    if (h.ipBackend !== undefined) {
      const ip = backends.get(h.ipBackend);
      if (!ip)
        problems.push(
          `${where}.ipBackend: host "${label}" names an unknown backend "${h.ipBackend}"; configured backends: ${names}`,
        );
      else if (!ip.connector.ip)
        problems.push(
          `${where}.ipBackend: host "${label}" names backend "${h.ipBackend}" of kind ${ip.kind}, which has no IP ` +
            'lookup; name a backend of kind geogate',
        );
    }
    const patterns = new Map<string, number>();
    const upstream = backends.get(named)?.headers ?? {};
    h.passthrough.forEach((r, j) => {
      for (const name of r.responseHeaders)
        if (name.toLowerCase() in upstream)
          problems.push(
            `${where}.passthrough[${j}].responseHeaders: "${name}" is a header the gateway sends to backend ` +
              `"${named}" (the operator's own); it is never passed back to a client`,
          );
      const first = patterns.get(r.path);
      if (first !== undefined)
        problems.push(
          `${where}.passthrough[${j}].path: host "${label}" lists "${r.path}" twice (first at passthrough[${first}])`,
        );
      else patterns.set(r.path, j);
    });
  });
  return problems;
}
