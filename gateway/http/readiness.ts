/** /readyz checks (issue 4): the store answers and the backend's /healthz answers 200 within 1 s. */
import { EmbeddedStore } from '../store/embedded/store';
import type { Store } from '../store/types';

/** How long one readiness probe may take. */
export const READINESS_TIMEOUT_MS = 1_000;

/** A store that can report on its own databases (the shared store: `{ redis, postgres }`). */
interface SelfChecking {
  readiness(): Promise<Record<string, boolean>>;
}

function selfChecking(store: Store): store is Store & SelfChecking {
  return typeof (store as Partial<SelfChecking>).readiness === 'function';
}

/** The store's readiness: its own checks, `{ sqlite }` after a trivial query, or one management read. */
export async function storeReadiness(store: Store): Promise<Record<string, boolean>> {
  if (selfChecking(store)) return store.readiness();
  if (store instanceof EmbeddedStore) {
    try {
      store.db.prepare('SELECT 1').get();
      return { sqlite: true };
    } catch {
      return { sqlite: false };
    }
  }
  // Any other Store: a read that touches the database and finds nothing.
  const ok = await store.getAccount('readiness-probe').then(
    () => true,
    () => false,
  );
  return { store: ok };
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
export function gatewayReadiness(store: Store, backend: URL): () => Promise<Record<string, boolean>> {
  return async () => {
    const [own, backendOk] = await Promise.all([
      storeReadiness(store).catch(() => ({ store: false })),
      backendReady(backend),
    ]);
    return { ...own, backend: backendOk };
  };
}
