/** Real processes for gateway tests: the compiled backend and the compiled gateway (`npm run build:ts` first). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { startBackendProcess } from './backend-process';
import { useFixture } from './fixture';

const ROOT = join(__dirname, '..', '..');

export interface RunningProcess {
  url: string;
  /** Every "listening on URL" / "host NAME on URL" line's URL, in order. */
  urls: string[];
  output: () => string;
  pid: number;
  /** The gateway's exit: its code (null when a signal ended it) and the signal (absent for the backend). */
  exited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawn `node [...nodeArgs] <script> ...args` (script relative to the checkout, or absolute) and wait until it prints all expected URL lines. */
export function spawnAndWait(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  expectLines: number,
  nodeArgs: string[] = [],
): Promise<RunningProcess> {
  const file = isAbsolute(script) ? script : join(ROOT, script);
  if (!existsSync(file)) throw new Error(`${script} is missing: run "npm run build:ts" first`);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const urls: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill();
      reject(new Error(`${script} did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (c: Buffer): void => {
      out += c.toString();
      for (const m of c.toString().matchAll(/(?:listening on|on) (http:\/\/[^\s]+)/g))
        urls.push(m[1] as string);
      if (urls.length >= expectLines) {
        clearTimeout(timer);
        resolve({
          url: urls[0] as string,
          urls,
          output: () => out,
          pid: child.pid as number,
          exited,
          stop: () => kill('SIGTERM'),
          kill,
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${out}`));
    });
  });
}

/** The real backend as a process on an ephemeral port (the backend room's helper, in this file's shape). */
export async function startBackendProc(): Promise<RunningProcess> {
  const b = await startBackendProcess();
  return {
    url: b.url,
    urls: [b.url],
    output: () => '',
    pid: b.pid,
    stop: () => b.stop(),
    kill: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (signal === 'SIGTERM') return b.stop();
      b.kill(signal);
    },
  };
}

/** The real gateway as a process (`node dist/gateway/main.js --config FILE`); waits for main, hosts and admin. */
export function startGatewayProc(
  configFile: string,
  lines: number,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProcess> {
  return spawnAndWait('dist/gateway/main.js', ['--config', configFile], env, lines);
}

/** The real backend process for the enclosing describe block (or file): started in beforeAll, stopped in afterAll. */
export function useBackendProcess(): RunningProcess {
  return useFixture('backend process', startBackendProc, (b) => b.stop());
}

/** The pids of a process's children (Linux /proc), e.g. the workers of a gateway started with `workers: N`. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // the process has ended
  }
  return out;
}

/** Wait until `count` children of `pid` run (the workers listen one after the other). */
export async function waitForChildren(pid: number, count: number, timeoutMs = 60_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const kids = childPids(pid);
    if (kids.length >= count) return kids;
    if (Date.now() > deadline) throw new Error(`process ${pid} has ${kids.length} children, not ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILL a gateway and all its workers at once (a crash of the whole gateway), and wait until none is left. */
export async function killAll(gateway: RunningProcess): Promise<void> {
  const pids = [gateway.pid, ...childPids(gateway.pid)];
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await gateway.exited;
  while (pids.some((p) => existsSync(`/proc/${p}/stat`) && !zombie(p)))
    await new Promise((r) => setTimeout(r, 20));
}

/** Whether a process has ended and waits to be reaped. */
function zombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}
