/**
 * Reloading the config file while requests flow (docs/operations.md, "Reload"): SIGHUP or the admin API's
 * POST /admin/reload read the file again, validate it as the start-up does, and hand it to the running gateway. An
 * invalid file, or one that changes a setting needing a restart, changes nothing and logs every error. With
 * `workers: N` the primary asks every worker and gathers their answers, so the whole group reloads alike.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { ConfigError } from '../gateway/config/load';
import { ReloadRefused, type ReloadOutcome } from '../gateway/config/reload';
import { compileConfig, loadConfigFile, type AppConfig } from './config';

/** A primary's request to a worker, and the worker's answer. */
const RELOAD = 'geogate:reload';
const RELOADED = 'geogate:reloaded';
/** A worker's request to the primary to reload the whole group (the admin route on that worker). */
const RELOAD_ALL = 'geogate:reload-all';
const RELOADED_ALL = 'geogate:reloaded-all';
/** How long the primary waits for the workers' answers. */
const WORKER_ANSWER_MS = 10_000;

interface Message {
  type: string;
  id: number;
  outcome?: ReloadOutcome;
}

const isMessage = (m: unknown, type: string): m is Message =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

/** Read, validate and apply `file` to `target`; every error is logged and returned, nothing changes on one. */
export function reloadFromFile(
  file: string,
  target: { reload(next: AppConfig): void },
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): ReloadOutcome {
  let errors: string[];
  try {
    target.reload(compileConfig(loadConfigFile(file, env), file));
    logger.warn({ file }, 'config reloaded');
    return { applied: true };
  } catch (err) {
    if (err instanceof ConfigError) errors = err.message.split('\n');
    else if (err instanceof ReloadRefused) errors = [`${file}: ${err.message}`];
    else errors = [`${file}: ${(err as Error).message}`];
  }
  for (const error of errors) logger.error({ file, error }, 'config reload failed: the running config stays');
  return { applied: false, errors };
}

/** The outcome of several processes' reloads: applied when all applied; every distinct error otherwise. */
function combine(outcomes: ReloadOutcome[]): ReloadOutcome {
  const errors = [...new Set(outcomes.flatMap((o) => (o.applied ? [] : o.errors)))];
  return errors.length === 0 ? { applied: true } : { applied: false, errors };
}

/**
 * One process (no workers): SIGHUP reloads; the returned function is the admin route's reload. SIGHUP's default
 * would end the process; here it never does.
 */
export function reloadOnSignal(apply: () => ReloadOutcome): () => Promise<ReloadOutcome> {
  process.on('SIGHUP', () => void apply());
  return () => Promise.resolve(apply());
}

/**
 * A worker: reload when the primary asks, and answer; the admin route asks the primary to reload the whole group.
 * The worker's own SIGHUP is ignored: a hang-up reaches the whole process group, and the primary decides.
 */
export function workerReload(apply: () => ReloadOutcome): () => Promise<ReloadOutcome> {
  process.on('SIGHUP', () => undefined);
  const pending = new Map<number, (o: ReloadOutcome) => void>();
  let next = 0;
  process.on('message', (m: unknown) => {
    if (isMessage(m, RELOAD)) process.send?.({ type: RELOADED, id: m.id, outcome: apply() });
    else if (isMessage(m, RELOADED_ALL) && m.outcome) pending.get(m.id)?.(m.outcome);
  });
  return () =>
    new Promise<ReloadOutcome>((resolve) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({ applied: false, errors: ['the primary process did not answer the reload'] });
      }, WORKER_ANSWER_MS + 2_000);
      pending.set(id, (o) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(o);
      });
      process.send?.({ type: RELOAD_ALL, id });
    });
}

/** The primary: on SIGHUP or a worker's request, ask every worker to reload and gather the answers. */
export function primaryReload(workers: () => Iterable<Worker>, logger: Logger): void {
  let next = 0;
  const waiting = new Map<number, { left: Set<Worker>; outcomes: ReloadOutcome[]; done: () => void }>();
  cluster.on('message', (worker: Worker, m: unknown) => {
    if (isMessage(m, RELOADED) && m.outcome) {
      const w = waiting.get(m.id);
      if (!w || !w.left.delete(worker)) return;
      w.outcomes.push(m.outcome);
      if (w.left.size === 0) w.done();
    } else if (isMessage(m, RELOAD_ALL)) {
      void reloadAll().then((outcome) => {
        if (worker.isConnected()) worker.send({ type: RELOADED_ALL, id: m.id, outcome });
      });
    }
  });
  const reloadAll = (): Promise<ReloadOutcome> =>
    new Promise((resolve) => {
      const id = next++;
      const left = new Set([...workers()].filter((w) => w.isConnected()));
      const outcomes: ReloadOutcome[] = [];
      const finish = (): void => {
        clearTimeout(timer);
        waiting.delete(id);
        if (left.size > 0)
          outcomes.push({ applied: false, errors: [`${left.size} worker(s) did not answer the reload`] });
        const outcome = combine(outcomes);
        if (outcome.applied) logger.warn({ workers: outcomes.length }, 'config reloaded by every worker');
        resolve(outcome);
      };
      const timer = setTimeout(finish, WORKER_ANSWER_MS);
      waiting.set(id, { left, outcomes, done: finish });
      if (left.size === 0) return finish();
      for (const w of left) w.send({ type: RELOAD, id });
    });
  process.on('SIGHUP', () => void reloadAll());
}
