/** Checks across fields that the schema cannot express: a host name or a port used twice, each place named. */
import { backendProblems } from './backends';
import type { RawConfig } from './schema';

/** One listening place: its config path, address and port. */
interface Listener {
  path: string;
  host: string;
  port: number;
}

/** Addresses that accept connections on every interface, so they clash with any address on the same port. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The `listen` of a section the composition root validates (the dashboard's): read by shape here, since gateway/
 * does not know the dashboard's schema; null when the section opens no listener.
 */
function sectionListen(section: unknown): { host: string; port: number } | null {
  if (section === null || typeof section !== 'object') return null;
  const listen = (section as { listen?: unknown }).listen;
  if (listen === null || typeof listen !== 'object') return null;
  const { host, port } = listen as { host?: unknown; port?: unknown };
  return typeof host === 'string' && typeof port === 'number' ? { host, port } : null;
}

/** Every listener the config opens (host entries with a port listen on the main listener's address). */
function listeners(raw: RawConfig): Listener[] {
  const out: Listener[] = [
    { path: 'listen.port', host: raw.listen.host, port: raw.listen.port },
    { path: 'admin.listen.port', host: raw.admin.listen.host, port: raw.admin.listen.port },
  ];
  if (raw.forwardAuth)
    out.push({
      path: 'forwardAuth.listen.port',
      host: raw.forwardAuth.listen.host,
      port: raw.forwardAuth.listen.port,
    });
  const dashboard = sectionListen(raw.dashboard);
  if (dashboard) out.push({ path: 'dashboard.listen.port', ...dashboard });
  raw.hosts.forEach((h, i) => {
    if (h.port !== undefined) out.push({ path: `hosts[${i}].port`, host: raw.listen.host, port: h.port });
  });
  return out;
}

/** Whether two listeners would try to bind the same address and port (port 0 picks a free one: never). */
function clash(a: Listener, b: Listener): boolean {
  if (a.port === 0 || a.port !== b.port) return false;
  return a.host === b.host || WILDCARD.has(a.host) || WILDCARD.has(b.host);
}

/** Problems as `path: message` lines; empty when the config is consistent. */
export function crossFieldProblems(raw: RawConfig): string[] {
  const problems: string[] = [];
  const names = new Map<string, number>();
  raw.hosts.forEach((h, i) => {
    if (h.name === undefined) return;
    const key = h.name.toLowerCase();
    const first = names.get(key);
    if (first === undefined) names.set(key, i);
    else
      problems.push(
        `hosts[${i}].name: the host name "${h.name}" is already used by hosts[${first}].name ` +
          '(host names are matched without regard to case; the second entry could never be reached)',
      );
  });
  const all = listeners(raw);
  all.forEach((l, i) => {
    const earlier = all.slice(0, i).find((e) => clash(e, l));
    if (earlier)
      problems.push(
        `${l.path}: port ${l.port} is already used by ${earlier.path} (${earlier.host}:${earlier.port}); ` +
          'give each listener its own port',
      );
  });
  problems.push(...backendProblems(raw));
  const fa = raw.forwardAuth;
  if (fa && fa.releaseWindowMs > 0 && raw.workers !== 1)
    problems.push(
      'forwardAuth.releaseWindowMs: the release route needs workers: 1 (an admission waiting for its release window ' +
        'is held by the process that decided it); set releaseWindowMs: 0 (the decision is final) or workers: 1',
    );
  if (fa && raw.trustProxy.length === 0)
    problems.push(
      'forwardAuth: forward auth reads the original request from a trusted proxy only (D3, D38); list the ' +
        "proxy's address under trustProxy",
    );
  return problems;
}
