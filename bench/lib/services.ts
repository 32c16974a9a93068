/**
 * Services the gateway benchmark starts for itself: a private redis-server on a free loopback port and a throw-away
 * PostgreSQL database on 127.0.0.1:5432, both removed again however the bench ends (normal end, error, signal).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'pg';

type Cleanup = () => void | Promise<void>;
const cleanups: Cleanup[] = [];
const children = new Set<ChildProcess>();

/** Register a child process: it is SIGKILLed if the bench exits while it still runs. */
export function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Run every registered cleanup (newest first), once each. */
export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const c = cleanups.pop() as Cleanup;
    await Promise.resolve()
      .then(c)
      .catch((err: unknown) => console.error('cleanup failed:', err));
  }
}

// Why: a Ctrl-C or a kill must not leave redis-server, gateways or the database behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanupAll().finally(() => process.exit(130));
  });
}
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** A running private redis-server. */
export interface BenchRedis {
  port: number;
  url: string;
  child: ChildProcess;
}

async function waitPing(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited ${child.exitCode}`);
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
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

/** Start a private redis-server (no persistence) on a free loopback port; stopped by cleanupAll. */
export async function startRedis(
  extra: (dir: string, port: number) => string[] = () => [],
): Promise<BenchRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-bench-redis-'));
  let port = await freePort();
  // A cluster node also listens on port + 10000.
  while (port > 55_535) port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn('redis-server', [...args, '--dir', dir, '--daemonize', 'no', ...extra(dir, port)], {
    stdio: 'ignore',
  });
  track(child);
  cleanups.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (err) => reject(new Error(`redis-server could not start: ${err.message}`))),
  );
  await Promise.race([waitPing(port, child), failed]);
  return { port, url: `redis://127.0.0.1:${port}`, child };
}

/** A private Redis Cluster of `masters` nodes (no replicas); its nodes and its store URL. Stopped by cleanupAll. */
export async function startRedisCluster(masters: number): Promise<{ nodes: BenchRedis[]; url: string }> {
  const nodes: BenchRedis[] = [];
  for (let i = 0; i < masters; i++)
    nodes.push(
      await startRedis((dir, port) => [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        path.join(dir, `nodes-${port}.conf`),
      ]),
    );
  const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
  await promisify(execFile)('redis-cli', [
    '--cluster',
    'create',
    ...addresses,
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  await new Promise((r) => setTimeout(r, 1_000)); // the nodes agree on the slots
  return { nodes, url: `redis+cluster://${addresses.join(',')}` };
}

async function adminClient(): Promise<{ client: Client; user: string }> {
  for (const user of ['postgres', 'root']) {
    const client = new Client({ host: '127.0.0.1', port: 5432, user, database: 'postgres' });
    try {
      await client.connect();
      return { client, user };
    } catch {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error('PostgreSQL is not reachable on 127.0.0.1:5432 as postgres or root (trust auth)');
}

/** Create a throw-away database; its URL. Dropped (WITH FORCE) by cleanupAll. */
export async function createDatabase(): Promise<string> {
  const admin = await adminClient();
  const name = `gg_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  try {
    await admin.client.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.client.end();
  }
  cleanups.push(async () => {
    const again = await adminClient();
    try {
      await again.client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await again.client.end();
    }
  });
  return `postgres://${admin.user}@127.0.0.1:5432/${name}`;
}

/** Register a cleanup (run by cleanupAll, newest first). */
export function onCleanup(c: Cleanup): void {
  cleanups.push(c);
}

/** Run a bench's main function, then stop what it started; a failure is printed and exits 1 (after the clean-up). */
export function runBench(run: () => Promise<void>): void {
  run()
    .then(() => cleanupAll())
    .catch(async (err: unknown) => {
      console.error(err);
      await cleanupAll();
      process.exit(1);
    });
}
