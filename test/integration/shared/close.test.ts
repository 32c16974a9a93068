/**
 * Opening and closing the shared store against unreachable databases: opening fails within a bound with an error
 * naming the unreachable side (no credentials), and close() releases every handle, so a child `node` process that
 * does this exits by itself (code 0, no signal) instead of being kept alive by reconnect timers or pools.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

/** A child that has not exited by then is killed, and the test fails (it did not exit by itself). */
const KILL_AFTER_MS = 15_000;

interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  result: Record<string, unknown>;
  stderr: string;
}

/** Run close-child.js; resolves when the child exits (by itself, or killed after KILL_AFTER_MS). */
function runChild(args: string[]): Promise<ChildRun> {
  const child = spawn(process.execPath, [join(__dirname, 'close-child.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      const line = out.trim().split('\n').pop() ?? '';
      let result: Record<string, unknown> = {};
      try {
        result = JSON.parse(line) as Record<string, unknown>;
      } catch {
        result = { unparsed: out };
      }
      resolve({ code, signal, result, stderr });
    });
  });
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('shared store: opening against unreachable databases', () => {
  it('fails naming Redis and PostgreSQL, leaks no credential, and the process exits by itself', async () => {
    const [pgPort, redisPort] = [await closedPort(), await closedPort()];
    const run = await runChild([
      'unreachable',
      `postgres://geogate:pg-secret-1@127.0.0.1:${pgPort}/geogate`,
      `redis://:redis-secret-2@127.0.0.1:${redisPort}/0`,
    ]);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({
      opened: false,
      name: 'StoreUnavailableError',
      code: 'store_unavailable',
    });
    const message = String(run.result.message);
    expect(message).toContain(`Redis at 127.0.0.1:${redisPort} is unreachable`);
    expect(message).toContain(`PostgreSQL at 127.0.0.1:${pgPort} is unreachable`);
    expect(message).not.toMatch(/secret|geogate:/);
    expect(Number(run.result.ms)).toBeLessThan(10_000);
  });

  it('an unresolvable PostgreSQL host is named by host only (no user, password or database)', async () => {
    const redisPort = await closedPort();
    const run = await runChild([
      'unreachable',
      'postgres://u:pw-3@pg.invalid/db',
      `redis://127.0.0.1:${redisPort}`,
    ]);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(String(run.result.message)).toContain('PostgreSQL at pg.invalid is unreachable');
    expect(String(run.result.message)).not.toMatch(/pw-3|u:|\/db/);
  });
});

describeShared('shared store: close() after both databases became unreachable', () => {
  const { env } = useSharedEnv('close');

  it('opened through proxies that are then cut: operations fail, close() returns, the process exits by itself', async () => {
    const run = await runChild(['cut', env.db.url, env.redis, env.prefix]);
    expect(run.result).toEqual({ opened: true, failedAfterCut: true });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  });
});
