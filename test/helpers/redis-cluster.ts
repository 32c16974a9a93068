/**
 * A three-node Redis Cluster for tests, from Debian's redis-server on free loopback ports: three masters, no
 * replicas, started by the test and stopped (and their files removed) by `stop()`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, waitForRedis } from './redis-server';

const run = promisify(execFile);

/** A running cluster. */
export interface TestCluster {
  ports: number[];
  /** The store's config form: `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`. */
  url: string;
  stop(): Promise<void>;
}

async function clusterOk(port: number): Promise<boolean> {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    const info = (await r.call('CLUSTER', 'INFO')) as string;
    return info.includes('cluster_state:ok');
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** Whether redis-server and redis-cli are installed. */
export async function clusterToolsAvailable(): Promise<boolean> {
  try {
    await run('redis-server', ['--version']);
    await run('redis-cli', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** Start three cluster-enabled redis-servers and join them into one cluster (16384 slots over 3 masters). */
export async function startRedisCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'gg-cluster-'));
  const ports: number[] = [];
  const procs: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((res) => {
            if (p.exitCode !== null) return res();
            p.once('exit', () => res());
            p.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      let port = await freePort();
      while (ports.includes(port) || port > 55_535) port = await freePort(); // the cluster bus uses port + 10000
      ports.push(port);
      procs.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${port}.conf`),
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
            '--daemonize',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    await Promise.all(ports.map((p) => waitForRedis(p)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 15_000;
    while (!(await Promise.all(ports.map(clusterOk))).every(Boolean)) {
      if (Date.now() > deadline) throw new Error('the test cluster did not reach cluster_state:ok');
      await new Promise((res) => setTimeout(res, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, stop };
}
