/** Bench child processes: spawn a compiled entry point, wait until it listens, stop it. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../gateway/core/paths';
import { track } from './services';

export interface Proc {
  url: string;
  child: ChildProcess;
}

/** Spawn a compiled entry point and wait for its first "listening on URL". */
export function start(
  script: string,
  args: string[],
  nodeArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
  listeners = 1,
): Promise<Proc> {
  const child = spawn(process.execPath, [...nodeArgs, path.resolve(repoRoot(), script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  track(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      // With workers, each prints its own line once it listens: wait for all of them.
      const lines = [...out.matchAll(/listening on (http:\/\/[^\s"]+)/g)];
      if (lines.length >= listeners) resolve({ url: (lines[0] as RegExpMatchArray)[1] as string, child });
    });
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}: ${out}`)));
  });
}

/** Stop a child (SIGTERM, SIGKILL after 10 s) and wait. */
export function stop(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    p.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    p.child.kill('SIGTERM');
  });
}
