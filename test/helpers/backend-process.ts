/**
 * Spawns the real backend process (`node dist/backend/main.js --port 0`) for integration and e2e tests and
 * resolves once it prints "listening on http://HOST:PORT". Requires a prior `npm run build`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../gateway/core/paths';

/** A running backend process. */
export interface BackendProcess {
  url: string;
  pid: number;
  /** SIGTERM, then waits for the exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Sends a signal (default SIGKILL) without waiting. */
  kill(signal?: NodeJS.Signals): void;
}

const READY = /listening on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 20_000;

/** Starts the backend on an ephemeral loopback port; extra env (e.g. BACKEND_HOST) is passed through. */
export function startBackendProcess(env: NodeJS.ProcessEnv = {}): Promise<BackendProcess> {
  const root = repoRoot();
  const main = path.join(root, 'dist', 'backend', 'main.js');
  if (!fs.existsSync(main)) {
    return Promise.reject(new Error(`backend-process: ${main} is missing; run \`npm run build\` first`));
  }
  const child = spawn(process.execPath, [main, '--port', '0'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return new Promise<BackendProcess>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`backend-process: not ready after ${START_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, START_TIMEOUT_MS);
    const earlyExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      reject(
        new Error(`backend-process: exited before ready (code ${code}, signal ${signal}); stderr: ${stderr}`),
      );
    };
    child.once('exit', earlyExit);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = READY.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', earlyExit);
      resolve({
        url: match[1] as string,
        pid: child.pid as number,
        kill: (signal = 'SIGKILL') => {
          child.kill(signal);
        },
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const force = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.kill('SIGTERM');
          await exited;
          clearTimeout(force);
        },
      });
    });
  });
}
