/**
 * Stores for the gateway benchmark: a small one (10 pay-as-you-go keys, each on its own account with plenty of
 * credit) and a large one (the same 10 plus 100,000 other accounts with a key each, inserted in bulk), on the
 * embedded or the shared store. The billed scenarios rotate over the 10 keys (a wrk Lua script).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { systemClock } from '../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import { createStore, type StoreConfig } from '../../gateway/store';

export const BENCH_PEPPER = 'bench-pepper-0123456789abcdef';
/** Keys the billed scenarios use. */
const KEYS = 10;
/** Accounts and keys added to make a store large (issue 12: 100,000 keys and 100,000 accounts). */
export const LARGE = Number(process.env['BENCH_LARGE_KEYS'] ?? 100_000);

/** A seeded store: its config, the accounts of the bench keys, the keys and a wrk script rotating over them. */
export interface Seeded {
  cfg: StoreConfig;
  accountIds: string[];
  keys: string[];
  script: string;
}

/** Insert `n` filler accounts with one key each into the embedded store's file, in one transaction. */
function fillEmbedded(file: string, n: number, now: number): void {
  const db = new Database(file);
  try {
    const acc = db.prepare(
      `INSERT INTO accounts (id, email, email_norm, name, password_hash, status, balance, unlimited_until, created_at)
       VALUES (?, ?, ?, NULL, NULL, 'active', 0, NULL, ?)`,
    );
    const key = db.prepare(
      `INSERT INTO api_keys (id, account_id, hash, prefix, label, kind, package_until, status, created_at, revoked_at)
       VALUES (?, ?, ?, 'gk_fill', NULL, 'payg', NULL, 'active', ?, NULL)`,
    );
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const email = `filler${i}@example.com`;
        acc.run(`acc_fill${i}`, email, email, now);
        key.run(`key_fill${i}`, `acc_fill${i}`, createHash('sha256').update(`fill${i}`).digest('hex'), now);
      }
    })();
  } finally {
    db.close();
  }
}

/** The same on PostgreSQL, in two statements. */
async function fillShared(url: string, n: number, now: number): Promise<void> {
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
    await client.query('ANALYZE accounts; ANALYZE api_keys');
  } finally {
    await client.end();
  }
}

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
    else await fillShared(cfg.postgres, filler, Date.now());
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
