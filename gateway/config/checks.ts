/** Checks across fields that the schema cannot express: a host name or a port used twice, each place named. */
import type { RawConfig } from './schema';

/** One listening place: its config path, address and port. */
interface Listener {
  path: string;
  host: string;
  port: number;
}

/** Addresses that accept connections on every interface, so they clash with any address on the same port. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/** Every listener the config opens (host entries with a port listen on the main listener's address). */
function listeners(raw: RawConfig): Listener[] {
  const out: Listener[] = [
    { path: 'listen.port', host: raw.listen.host, port: raw.listen.port },
    { path: 'admin.listen.port', host: raw.admin.listen.host, port: raw.admin.listen.port },
  ];
  if (raw.dashboard) {
    const l = raw.dashboard.listen;
    out.push({ path: 'dashboard.listen.port', host: l.host, port: l.port });
  }
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
  return problems;
}
