/**
 * The shared store's idle traffic (no polling loops; an idle instance makes at most a few Redis calls a second): a
 * real gateway process (`npm run build:ts` first) with its defaults on a private redis-server, no requests, Redis's
 * own command statistics over 10 s. Then the drain still wakes on work: a top-up written by another instance while
 * this one idles reaches PostgreSQL at once, not after a polling period.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { useTempDir } from '../../helpers/fixture';
import { startGatewayProc, type RunningProcess } from '../../helpers/gateway-processes';
import { describeShared, msUntil, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

/** Calls per command since the last CONFIG RESETSTAT, without the test's own. */
async function commandStats(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm))
    if (m[1] !== 'config|resetstat' && m[1] !== 'info') calls[m[1] as string] = Number(m[2]);
  return calls;
}

describeShared('an idle instance on the shared store', () => {
  let gateway: RunningProcess | null = null;
  afterAll(async () => {
    await gateway?.kill('SIGKILL');
  }); // declared first: runs before the env's cleanup
  const { env, redis } = useSharedEnv('idle', 'private');
  let dir: string;
  useTempDir('gg-idle-', (d) => (dir = d));

  it('makes at most 5 Redis calls a second over 10 s (commands inside scripts bounded apart), no stream scan, and wakes on a write', async () => {
    const config = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      backend: { url: 'http://127.0.0.1:9' },
      store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
      keyPepper: 'test-pepper-0123456789abcdef',
      hosts: [{ name: 'localhost', adapter: 'native' }],
      log: { level: 'silent' },
    };
    const file = join(dir, 'geogate.yaml');
    writeFileSync(file, JSON.stringify(config)); // JSON is YAML
    gateway = await startGatewayProc(file, 3);

    const stats = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      await new Promise((r) => setTimeout(r, 1_500)); // start-up: first drain pass, first sweep
      await stats.config('RESETSTAT');
      // MONITOR names each command's source: a client connection, or "lua" for those a script runs inside Redis.
      // A call is what a client sends (a script call is one); those inside scripts are counted apart (D33's lease
      // reclaim reads its 16 shard indexes inside one script call).
      const monitor = await new Redis(redis.url, { maxRetriesPerRequest: 1 }).monitor();
      const sent: Record<string, number> = {};
      let inside = 0;
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source === 'lua') inside += 1;
        else sent[(args[0] ?? '').toLowerCase()] = (sent[(args[0] ?? '').toLowerCase()] ?? 0) + 1;
      });
      await new Promise((r) => setTimeout(r, 10_000));
      monitor.disconnect();
      const calls = await commandStats(stats);
      const clientCalls = Object.values(sent).reduce((a, b) => a + b, 0);
      if (process.env.GG_VERBOSE) console.log('idle Redis calls over 10 s:', sent, 'inside scripts:', inside);
      expect(clientCalls).toBeLessThanOrEqual(50);
      // Inside scripts too the idle traffic stays bounded (a few reads per script call, not a scan per account).
      expect(inside).toBeLessThanOrEqual(400);
      expect(calls['xrange'] ?? 0).toBe(0); // no drain pass without work
      expect(calls['xread'] ?? 0).toBeGreaterThanOrEqual(1); // the blocking read that waits for work

      // Another instance's write (it never drains by itself) is drained by the idle one at once.
      const other = await env.open({ drainIntervalMs: 1e9 });
      const acc = await other.createAccount({ email: 'idle-wake@example.org' }, Date.now());
      await other.credit(acc.id, 7, 'wake', Date.now());
      const pg = new Client({ connectionString: env.db.url });
      await pg.connect();
      try {
        const ms = await msUntil(async () => {
          const r = await pg.query('SELECT count(*)::int AS n FROM ledger WHERE account_id = $1', [acc.id]);
          return (r.rows[0] as { n: number }).n === 1;
        }, 'the idle instance drains a top-up');
        expect(ms).toBeLessThan(1_000);
      } finally {
        await pg.end();
      }
    } finally {
      stats.disconnect();
    }
  });
});

describeShared(
  'an idle instance on a Redis Cluster',
  () => {
    const { env } = useSharedEnv('idle-cluster', 'cluster');

    it('backs off while idle and still drains a write made after the idle spell, within the 4 s bound', async () => {
      const idle = await env.open({ drainIntervalMs: 250 }); // the one that drains
      const other = await env.open({ drainIntervalMs: 1e9 }); // writes, never drains by itself
      await new Promise((r) => setTimeout(r, 3_000)); // passes find nothing: the wait grows towards 4 s
      const acc = await other.createAccount({ email: 'idle-cluster@example.org' }, Date.now());
      await other.credit(acc.id, 7, 'wake', Date.now());
      const ms = await msUntil(
        async () => {
          const rows = await idle
            .knex('ledger')
            .where({ account_id: acc.id })
            .count<{ n: string }[]>({ n: '*' });
          return Number(rows[0]?.n) === 1;
        },
        'the idle instance drains a top-up on the cluster',
        6_000,
      );
      expect(ms).toBeLessThan(4_500);
    });
  },
  ['redis-cli'],
);
