/**
 * Graceful drain on SIGTERM/SIGINT (issue 14 item 4), shared by the process entry (runtime/main.ts) and `npm start`
 * (scripts/start.ts): /readyz turns 503 at once; after `delayMs` the listeners stop accepting; in-flight requests
 * finish within `timeoutMs` (counted from then), the stores close and the process exits 0. A second signal exits at
 * once with 128 + the signal's number; the bound running out exits 1.
 */
import { constants } from 'node:os';
import type { Logger } from 'pino';

/** What is drained: the listeners (readiness, then stop accepting). */
export interface Drainable {
  drain(): void;
  closeGracefully(): Promise<void>;
}

/** The drain's settings and parts; `exit` and `signals` are injectable for tests. */
export interface DrainOptions {
  target: Drainable;
  /** Run after the listeners have closed: close stores, the backend… */
  release: () => Promise<unknown>;
  delayMs: number;
  timeoutMs: number;
  logger: Logger;
  exit?: (code: number) => void;
  signals?: NodeJS.EventEmitter;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** The exit code of a second signal: 128 + its number, as a shell reports a process killed by it. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

/** Install the SIGTERM/SIGINT handlers. */
export function drainOnSignals(o: DrainOptions): void {
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const proc = o.signals ?? process;
  let draining = false;
  const finish = async (): Promise<void> => {
    o.logger.warn('shutdown: listeners stop accepting; waiting for in-flight requests');
    const bound = setTimeout(() => {
      o.logger.error({ timeoutMs: o.timeoutMs }, 'shutdown: in-flight requests outlasted drain.timeoutMs');
      exit(1);
    }, o.timeoutMs);
    try {
      await o.target.closeGracefully();
      await o.release();
      clearTimeout(bound);
      o.logger.warn('shutdown: drained');
      exit(0);
    } catch (err) {
      clearTimeout(bound);
      o.logger.error({ err }, 'shutdown: closing failed');
      exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (draining) {
      o.logger.error({ signal }, 'shutdown: second signal, exiting at once');
      exit(signalExitCode(signal));
      return;
    }
    draining = true;
    o.target.drain();
    o.logger.warn(
      { signal, delayMs: o.delayMs, timeoutMs: o.timeoutMs },
      'shutdown: draining (/readyz answers 503)',
    );
    setTimeout(() => void finish(), o.delayMs);
  };
  for (const s of SIGNALS) proc.on(s, onSignal);
}
