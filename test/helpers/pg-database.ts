/**
 * A throw-away PostgreSQL database per test file on 127.0.0.1:5432 (trust auth): connects to the `postgres`
 * database as `postgres` or `root` (whichever works), creates `gg_<unique>`, and drops it afterwards.
 * Outside CI an unreachable server yields null (the caller skips with a message); with CI=true it throws.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

const HOST = process.env.PGHOST_TEST ?? '127.0.0.1';
const PORT = Number(process.env.PGPORT_TEST ?? 5432);

/** A created database: its URL and how to drop it. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function adminClient(): Promise<{ client: Client; user: string } | null> {
  for (const user of ['postgres', 'root']) {
    const client = new Client({
      host: HOST,
      port: PORT,
      user,
      database: 'postgres',
      connectionTimeoutMillis: 2_000,
    });
    try {
      await client.connect();
      return { client, user };
    } catch {
      await client.end().catch(() => undefined);
    }
  }
  return null;
}

/** Create a fresh database; null when PostgreSQL is unreachable outside CI. */
export async function createTestDatabase(): Promise<TestDatabase | null> {
  const admin = await adminClient();
  if (!admin) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is not reachable on ${HOST}:${PORT} (CI=true)`);
    return null;
  }
  const name = `gg_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin.client.query(`CREATE DATABASE ${name}`);
  await admin.client.end();
  return {
    name,
    url: `postgres://${admin.user}@${HOST}:${PORT}/${name}`,
    drop: async () => {
      const again = await adminClient();
      if (!again) return;
      await again.client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.client.end();
    },
  };
}
