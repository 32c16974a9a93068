/**
 * Shared e2e setup for the drop-in hosts: the real backend process, the in-process gateway (embedded store on a temp
 * file, rule set B, a free allowance of ONE request per account per day so "exhausted" is one request away), and one
 * listener per drop-in host on its own ephemeral port. Also a guard that fails a test when a client never settles
 * or leaves an uncaught exception or unhandled rejection behind.
 */
import { runInThisContext } from 'node:vm';
import { generateKey } from '../../../gateway/core/keys';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import { startGatewayHarness, type Harness } from '../../helpers/gateway-harness';

/** Paris, near the Eiffel Tower (the backend's nearest locality there is in Paris). */
export const PARIS = { lat: 48.8584, lon: 2.2945 };

/** A running set of drop-in hosts. */
export interface DropIns {
  harness: Harness;
  backend: BackendProcess;
  /** Base URL (http://127.0.0.1:port) of the listener serving `adapter`. */
  url(adapter: string): string;
  /** A fresh key on a fresh account: one free request today, no credit (rule set B, D7). */
  freshKey(): Promise<string>;
  /** A well-formed key that the store does not know (401 invalid_key). */
  unknownKey: string;
  close(): Promise<void>;
}

/** Options: the free allowance per day (default 1) and proxies whose X-Forwarded-For is trusted (D3). */
export interface DropInOptions {
  freePerDay?: number;
  trustProxy?: string[];
}

/** Starts the backend and a gateway serving the named drop-in adapters, each on its own port. */
export async function startDropIns(adapters: readonly string[], opts: DropInOptions = {}): Promise<DropIns> {
  const backend = await startBackendProcess();
  let harness: Harness;
  try {
    harness = await startGatewayHarness({
      policy: 'B',
      backendUrl: backend.url,
      config: {
        hosts: [
          { name: 'localhost', adapter: 'native' },
          ...adapters.map((a) => ({ name: `${a}.test`, port: 0, adapter: a })),
        ],
        limits: { freePerDay: opts.freePerDay ?? 1 },
        trustProxy: opts.trustProxy ?? [],
      },
    });
  } catch (err) {
    await backend.stop();
    throw err;
  }
  return {
    harness,
    backend,
    url(adapter) {
      const u = harness.hostUrls[`${adapter}.test`];
      if (!u) throw new Error(`no listener for adapter ${adapter}`);
      return u;
    },
    async freshKey() {
      const account = await harness.account();
      return (await harness.key(account.id)).key;
    },
    unknownKey: generateKey(),
    async close() {
      await harness.close();
      await backend.stop();
    },
  };
}

/** Settles `promise` within `ms` or fails with a "hung" error naming `what` (a client must never hang). */
export function settlesWithin<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the client did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What a promise ended with: its value or its rejection reason. */
export async function outcome<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A process-level fault seen while a watch was installed. */
export interface ProcessFault {
  event: 'uncaughtException' | 'unhandledRejection';
  reason: unknown;
}

/**
 * The Node process itself. Inside a Jest test `process` is a sandbox copy whose listeners never hear the real
 * `uncaughtException` / `unhandledRejection` events (checked: a listener on it recorded neither), so the watch
 * attaches to the process object of the outer context, which `vm.runInThisContext` evaluates in.
 */
function realProcess(): NodeJS.Process {
  return runInThisContext('process') as NodeJS.Process;
}

/**
 * Records uncaught exceptions and unhandled rejections of the real process while installed; `fired` must stay
 * empty. `stop()` removes both listeners.
 */
export function watchProcessFaults(): { fired: ProcessFault[]; stop(): void } {
  const proc = realProcess();
  const fired: ProcessFault[] = [];
  const onException = (reason: unknown): void => {
    fired.push({ event: 'uncaughtException', reason });
  };
  const onRejection = (reason: unknown): void => {
    fired.push({ event: 'unhandledRejection', reason });
  };
  proc.on('uncaughtException', onException);
  proc.on('unhandledRejection', onRejection);
  return {
    fired,
    stop: () => {
      proc.off('uncaughtException', onException);
      proc.off('unhandledRejection', onRejection);
    },
  };
}
