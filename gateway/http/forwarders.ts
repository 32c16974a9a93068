/**
 * One forwarder per named backend (D25), each with its own keep-alive pool, behind the single `Forwarder` seam the
 * pipeline calls: the call's backend picks its forwarder. A geogate backend without prefix, headers or query uses the
 * plain forwarder (today's request, byte for byte).
 */
import type { CompiledBackend } from '../config/backends';
import { createForwarder, type Forwarder } from './backend';

/** Whether a backend needs nothing of the named path (our own backend at a bare origin). */
function plain(b: CompiledBackend): boolean {
  return b.kind === 'geogate' && b.prefix === '' && b.query === '' && Object.keys(b.headers).length === 0;
}

/** The forwarder of one backend. */
export function backendForwarder(b: CompiledBackend): Forwarder {
  return plain(b)
    ? createForwarder(b.url, b.timeoutMs, b.passRequestId)
    : createForwarder(b.url, b.timeoutMs, b.passRequestId, b);
}

/** A forwarder that sends each call to its backend's own forwarder (`fallback`'s when the call names none). */
export function createForwarders(backends: ReadonlyMap<string, CompiledBackend>): Forwarder & {
  /** The forwarder of a backend by name. */
  of(name: string): Forwarder | undefined;
} {
  const byName = new Map<string, Forwarder>();
  for (const [name, b] of backends) byName.set(name, backendForwarder(b));
  const first = byName.values().next().value as Forwarder;
  // One backend (the old single-backend config): its forwarder itself, no routing step per request.
  if (byName.size === 1) return Object.assign(first, { of: (name: string) => byName.get(name) });
  const forward = (...args: Parameters<Forwarder>): ReturnType<Forwarder> =>
    ((args[4] && byName.get(args[4].name)) ?? first)(...args);
  return Object.assign(forward, {
    close: () => byName.forEach((f) => f.close()),
    of: (name: string) => byName.get(name),
  });
}
