/**
 * Redis for tests: the machine's Redis on 127.0.0.1:6379 with a unique key prefix (cleaned up afterwards), or a
 * private `redis-server` on a free loopback port started by the test (for stopping and restarting it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const LOCAL_REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test uses. */
export function uniquePrefix(tag: string): string {
  return `t:${tag}:${Date.now().toString(36)}${randomBytes(3).toString('hex')}:`;
}

/** Whether a Redis answers PING at `url` (CI=true: throws instead of returning false). */
export async function redisReachable(url = LOCAL_REDIS_URL): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is not reachable at ${url} (CI=true)`);
    return false;
  } finally {
    r.disconnect();
  }
}

/** Delete every key under `prefix` on a single Redis. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Wait until a Redis on `port` answers PING. */
export async function waitForRedis(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((res) => setTimeout(res, 50));
    } finally {
      r.disconnect();
    }
  }
}

/** A private redis-server process (AOF on, fsync always, so a restart keeps the data like a production setup). */
export class PrivateRedis {
  private proc: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'gg-redis-'));

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Start (or restart) the server on the same port and data directory. */
  async start(): Promise<void> {
    this.proc = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    await waitForRedis(this.port);
  }

  /** Stop the server (SIGKILL: nothing beyond the fsynced AOF survives). */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((res) => p.once('exit', res));
    p.kill('SIGKILL');
    await exited;
  }

  /** Freeze the server (SIGSTOP): connections stay open, commands get no answer until resume(). */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  /** Let a paused server run again (SIGCONT): it then executes what it received meanwhile. */
  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  /** Stop and remove the data directory. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Start a private redis-server on a free port. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const r = new PrivateRedis(await freePort());
  await r.start();
  return r;
}
