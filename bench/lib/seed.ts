/**
 * Stores for the gateway benchmark: a small one (10 pay-as-you-go keys, each on its own account with plenty of
 * credit) and a large one (the same 10 plus 1,000,000 other accounts with a key each, and 1,000,000 anonymous
 * addresses seen today, among them the addresses of the "100k addresses" scenarios), on the embedded or the shared
 * store. The billed scenarios rotate over the 10 keys (a wrk Lua script). The large store is written in bulk as the
 * store's own rows (SQLite in one transaction; PostgreSQL with generate_series; Redis counters pipelined), not through
 * a million API calls: seconds, not hours. A store whose rows change shape changes these writers with it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { systemClock, utcDay } from '../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import { createStore, type StoreConfig } from '../../gateway/store';
import { counterKeyOf } from './stores';
import { addressSubject } from './addresses';

export const BENCH_PEPPER = 'bench-pepper-0123456789abcdef';
/** Keys the billed scenarios use. */
const KEYS = 10;
/** Accounts with a key, and anonymous addresses seen today, added to make a store large. */
export const LARGE = Number(process.env['BENCH_LARGE_KEYS'] ?? 1_000_000);

/** A seeded store: its config, the accounts of the bench keys, the keys and a wrk script rotating over them. */
export interface Seeded {
  cfg: StoreConfig;
  accountIds: string[];
  keys: string[];
  script: string;
}

/** SQL of the i-th address's subject (addressSubject(i)), for bulk statements over a series `i`. */
const SUBJECT_SQL = `'network:10.' || ((i >> 16) & 255) || '.' || ((i >> 8) & 255) || '.' || (i & 255) || '/32'`;

/**
 * Insert `n` filler accounts with one key each, and `n` addresses seen today, into the embedded store's file: four
 * INSERT … SELECT over a recursive series in one transaction, so the rows never cross into JavaScript.
 */
function fillEmbedded(file: string, n: number, now: number): void {
  const db = new Database(file);
  try {
    db.pragma('synchronous = OFF'); // this connection only: a seed that dies is seeded again
    const series = 'WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < @n)';
    const statements = [
      `INSERT INTO accounts (id, email, email_norm, name, password_hash, status, balance, unlimited_until, created_at)
       ${series} SELECT 'acc_fill' || i, 'filler' || i || '@example.com', 'filler' || i || '@example.com', NULL, NULL,
       'active', 0, NULL, @now FROM s`,
      // A unique 64-hex-digit hash per filler key (no key of the load hashes to it).
      `INSERT INTO api_keys (id, account_id, hash, prefix, label, kind, package_until, status, created_at, revoked_at)
       ${series} SELECT 'key_fill' || i, 'acc_fill' || i, printf('%064x', i), 'gk_fill', NULL, 'payg', NULL, 'active',
       @now, NULL FROM s`,
      `INSERT INTO counters_daily (day, counter_id, used) ${series} SELECT @day, ${SUBJECT_SQL}, 1 FROM s`,
      `INSERT INTO usage_daily (day, subject, free, billed, refused)
       ${series} SELECT @day, ${SUBJECT_SQL}, 1, 0, 0 FROM s`,
    ].map((sql) => db.prepare(sql));
    const params = { n, now, day: utcDay(now) };
    db.transaction(() => {
      for (const st of statements) st.run(params);
    })();
  } finally {
    db.close();
  }
}

/** The same on the shared store: PostgreSQL's rows in four statements, then the addresses' Redis counters. */
async function fillShared(cfg: SharedConfig, n: number, now: number): Promise<void> {
  const url = cfg.postgres;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO accounts (id, email, email_norm, name, password_hash, status, balance, unlimited_until, created_at)
       SELECT 'acc_fill' || i, 'filler' || i || '@example.com', 'filler' || i || '@example.com', NULL, NULL, 'active',
              0, NULL, $1 FROM generate_series(0, $2::int - 1) AS i`,
      [now, n],
    );
    await client.query(
      `INSERT INTO api_keys (id, account_id, hash, prefix, label, kind, package_until, status, created_at, revoked_at)
       SELECT 'key_fill' || i, 'acc_fill' || i, md5('fill' || i) || md5('fill2' || i), 'gk_fill', NULL, 'payg', NULL,
              'active', $1, NULL FROM generate_series(0, $2::int - 1) AS i`,
      [now, n],
    );
    // 10.0.0.0 + i, as addressSubject(i); the drained counters and usage rows of the addresses seen today.
    const subject = `'network:10.' || (i / 65536 % 256) || '.' || (i / 256 % 256) || '.' || (i % 256) || '/32'`;
    await client.query(
      `INSERT INTO counters_daily (day, counter_id, used)
       SELECT $1, ${subject}, 1 FROM generate_series(0, $2::int - 1) AS i`,
      [utcDay(now), n],
    );
    await client.query(
      `INSERT INTO usage_daily (day, subject, free, billed, refused)
       SELECT $1, ${subject}, 1, 0, 0 FROM generate_series(0, $2::int - 1) AS i`,
      [utcDay(now), n],
    );
    await client.query('ANALYZE accounts; ANALYZE api_keys; ANALYZE counters_daily; ANALYZE usage_daily');
  } finally {
    await client.end();
  }
  await fillRedisCounters(cfg, n, utcDay(now));
}

/** How long the store's scripts keep a daily counter (3 days). */
const COUNTER_TTL_S = 3 * 86_400;

/** The addresses' daily counters in Redis (what the admission script reads), pipelined 10,000 at a time. */
async function fillRedisCounters(cfg: SharedConfig, n: number, day: string): Promise<void> {
  const store = await createStore(cfg, { clock: systemClock });
  const redis = new Redis(cfg.redis, { maxRetriesPerRequest: 1 });
  try {
    const counterKey = counterKeyOf(store);
    for (let from = 0; from < n; from += 10_000) {
      const pipe = redis.pipeline();
      for (let i = from; i < Math.min(n, from + 10_000); i++)
        pipe.set(counterKey(addressSubject(i), day), 1, 'EX', COUNTER_TTL_S);
      await pipe.exec();
    }
  } finally {
    redis.disconnect();
    await store.close();
  }
}

type SharedConfig = Extract<StoreConfig, { kind: 'shared' }>;

/** Seed a store: 10 bench keys with credit, and `filler` other accounts and keys; `dir` gets the wrk script. */
export async function seedStore(
  cfg: StoreConfig,
  filler: number,
  dir: string,
  name: string,
): Promise<Seeded> {
  const store = await createStore(cfg, { clock: systemClock });
  const accountIds: string[] = [];
  const keys: string[] = [];
  try {
    for (let i = 0; i < KEYS; i++) {
      const acc = await store.createAccount({ email: `bench${i}@example.com`, name: 'Bench' }, Date.now());
      await store.credit(acc.id, 1_000_000_000, `bench${i}`, Date.now());
      const key = generateKey();
      await store.createKey(
        { accountId: acc.id, hash: hashKey(key, BENCH_PEPPER), prefix: keyPrefix(key), kind: 'payg' },
        Date.now(),
      );
      accountIds.push(acc.id);
      keys.push(key);
    }
  } finally {
    await store.close();
  }
  if (filler > 0) {
    if (cfg.kind === 'embedded') fillEmbedded(cfg.path, filler, Date.now());
    else await fillShared(cfg, filler, Date.now());
  }
  const script = path.join(dir, `${name}-keys.lua`);
  writeFileSync(
    script,
    [
      `local keys = { ${keys.map((k) => `"${k}"`).join(', ')} }`,
      'local i = 0',
      'request = function()',
      '  i = i % #keys + 1',
      '  return wrk.format(nil, nil, { ["X-API-Key"] = keys[i] })',
      'end',
      '',
    ].join('\n'),
  );
  return { cfg, accountIds, keys, script };
}

/** Ledger rows of the bench accounts (a billed run must have charged). */
export async function ledgerRows(s: Seeded): Promise<number> {
  const store = await createStore(s.cfg, { clock: systemClock });
  try {
    let n = 0;
    for (const id of s.accountIds) n += (await store.ledger(id, 1)).length;
    return n;
  } finally {
    await store.close();
  }
}
