/**
 * /readyz checks (issue 4, D27): the store answers, and every configured backend answers its kind's cheap call within
 * 1 s (geogate `/healthz`, Nominatim `/status`, Photon and Pelias a reverse call at 0,0, an http backend any answer
 * below 500). The top-level `backend:` is reported as `backend`, a named one as `backend:NAME`, so /readyz names the
 * backend that is down. Start-up never waits for a backend: the gateway becomes ready when its backends do.
 */
import type { CompiledBackend } from '../config/backends';
import { DEFAULT_BACKEND } from '../config/backends';
import type { Lifecycle } from '../store/ports';

/** How long one readiness probe may take. */
export const READINESS_TIMEOUT_MS = 1_000;

/** The store's readiness, as the store reports it (`{ sqlite }`, `{ redis, postgres }`, …). */
export function storeReadiness(store: Lifecycle): Promise<Record<string, boolean>> {
  return store.readiness();
}

/** Whether a named backend answers its kind's cheap call (D27) within the timeout; its operator parts are sent. */
export async function backendUp(b: CompiledBackend, timeoutMs = READINESS_TIMEOUT_MS): Promise<boolean> {
  const path = b.prefix + b.connector.health;
  const url = new URL(
    b.query === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${b.query}`,
    b.url.origin,
  );
  try {
    const res = await fetch(url, {
      headers: { accept: 'application/json', ...b.headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = Buffer.from(await res.arrayBuffer());
    return b.connector.healthy(res.status, body);
  } catch {
    return false;
  }
}

/** The check name of a backend: `backend` for the top-level one (as before D25), else `backend:NAME`. */
export function checkName(name: string): string {
  return name === DEFAULT_BACKEND ? 'backend' : `backend:${name}`;
}

/** The admin app's `readiness` callback: store checks plus one check per backend. */
export function gatewayReadiness(
  store: Lifecycle,
  backends: ReadonlyMap<string, CompiledBackend>,
): () => Promise<Record<string, boolean>> {
  const list = [...backends.values()];
  return async () => {
    const [own, ...up] = await Promise.all([
      storeReadiness(store).catch(() => ({ store: false })),
      ...list.map((b) => backendUp(b)),
    ]);
    const checks: Record<string, boolean> = { ...own };
    list.forEach((b, i) => (checks[checkName(b.name)] = up[i] === true));
    return checks;
  };
}
