/** /readyz checks (issue 4): the store answers and the backend's /healthz answers 200 within 1 s. */
import type { Store } from '../store/types';

/** How long one readiness probe may take. */
export const READINESS_TIMEOUT_MS = 1_000;

/** The store's readiness, as the store reports it (`{ sqlite }`, `{ redis, postgres }`, …). */
export function storeReadiness(store: Pick<Store, 'readiness'>): Promise<Record<string, boolean>> {
  return store.readiness();
}

/** Whether the backend's /healthz answers 200 within the timeout. */
export async function backendReady(base: URL, timeoutMs = READINESS_TIMEOUT_MS): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz', base.origin), { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The admin app's `readiness` callback: store checks plus `{ backend }`. */
export function gatewayReadiness(
  store: Pick<Store, 'readiness'>,
  backend: URL,
): () => Promise<Record<string, boolean>> {
  return async () => {
    const [own, backendOk] = await Promise.all([
      storeReadiness(store).catch(() => ({ store: false })),
      backendReady(backend),
    ]);
    return { ...own, backend: backendOk };
  };
}
