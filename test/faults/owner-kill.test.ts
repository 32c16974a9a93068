/**
 * kill -9 of a real gateway process (`node dist/gateway/main.js`, `npm run build:ts` first) whose embedded store is
 * owned by the one process and decided in memory (D33, D34), under billed load. The store is then opened as the
 * restarted gateway opens it (its journal tail folded, exactly once). Nothing is charged that was not kept, the
 * balance equals the ledger's sum, and the answered requests left uncharged are at most those of the last turn (at
 * most the requests in flight, CONCURRENCY). The second test kills the process inside a fold, after its writes and
 * before its COMMIT (GEOGATE_TEST_KILL_IN_FOLD), so the replay must apply that fold's records once.
 */
import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import { createStore, type Store } from '../../gateway/store';
import { useTempDir } from '../helpers/fixture';
import { call } from '../helpers/gateway-harness';
import { startGatewayProc, useBackendProcess, type RunningProcess } from '../helpers/gateway-processes';

jest.setTimeout(120_000);

const PEPPER = 'test-pepper-0123456789abcdef';
const START = 1_000_000;
const PRICE = 3;
const CONCURRENCY = 16;

/** The account's charges in the ledger (positive) and what sum(ledger) is. */
async function money(store: Store, accountId: string): Promise<{ charged: number; sum: number }> {
  const ledger = await store.ledger(accountId, 100_000);
  return {
    charged: ledger.filter((e) => e.kind === 'charge').reduce((s, e) => s - e.amount, 0),
    sum: ledger.reduce((s, e) => s + e.amount, 0),
  };
}

describe('kill -9 of a gateway that owns its embedded store (admission in memory, journal, fold)', () => {
  const gateways: RunningProcess[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.kill('SIGKILL');
  });
  const backend = useBackendProcess();
  let dir: string;
  useTempDir('gg-ownerkill-', (d) => (dir = d));

  /** A store file with one account of START and a key; the gateway's config; the key. */
  async function setUp(
    name: string,
  ): Promise<{ path: string; file: string; key: string; accountId: string }> {
    const path = join(dir, `${name}.db`);
    const seed = await createStore({ kind: 'embedded', path }, { clock: { now: () => Date.now() } });
    const acc = await seed.createAccount({ email: `${name}@example.org`, name: 'K' }, Date.now());
    await seed.credit(acc.id, START, null, Date.now());
    const key = generateKey();
    await seed.createKey(
      { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
      Date.now(),
    );
    await seed.close();
    const config = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      backend: { url: backend.url, timeoutMs: 5000 },
      store: { kind: 'embedded', path, foldEveryMs: 200 },
      keyPepper: PEPPER,
      hosts: [{ name: 'localhost', adapter: 'native' }],
      limits: { freePerDay: 0, pricePerRequest: PRICE },
      log: { level: 'silent' },
    };
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, JSON.stringify(config)); // JSON is YAML
    return { path, file, key, accountId: acc.id };
  }

  /** Billed load on `g` until `stop()` says so or the process is gone; the answered (200) count. */
  async function load(g: RunningProcess, key: string, stop: (answered: number) => boolean): Promise<number> {
    let answered = 0;
    let gone = false;
    const worker = async () => {
      while (!gone && !stop(answered)) {
        try {
          const a = await call(g.url, '/v1/reverse?lat=48.8584&lon=2.2945', {
            headers: { 'x-api-key': key },
          });
          if (a.status === 200) answered += 1;
          else throw new Error(`status ${a.status}`);
        } catch {
          gone = true; // the killed process's connections
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return answered;
  }

  /** What the file holds before the restart: billed requests folded, and the journal position folded. */
  function folded(path: string): { billed: number; position: number } {
    const db = new Database(path, { readonly: true });
    try {
      const billed = db
        .prepare("SELECT COALESCE(SUM(billed), 0) FROM usage_daily WHERE subject LIKE 'key:%'")
        .pluck();
      const position = db.prepare("SELECT position FROM embedded_journal WHERE name = 'owner'").pluck();
      return { billed: billed.get() as number, position: (position.get() as number | undefined) ?? 0 };
    } finally {
      db.close();
    }
  }

  /** Open the store as the restarted gateway does (memory owner: the journal tail is folded) and check the money. */
  async function reopenAndCheck(path: string, accountId: string, answered: number): Promise<number> {
    expect(existsSync(`${path}.journal`)).toBe(true); // the gateway decided in memory (D33 owner)
    const before = folded(path);
    const store = await createStore(
      { kind: 'embedded', path, admission: 'memory' },
      { clock: { now: () => Date.now() } },
    );
    try {
      const { charged, sum } = await money(store, accountId);
      const balance = (await store.getAccount(accountId))?.balance ?? -1;
      expect(balance).toBe(START - charged);
      expect(sum).toBe(balance); // balance = sum(ledger)
      expect(charged % PRICE).toBe(0);
      const requests = charged / PRICE;
      // Never charged beyond what was kept: kept requests were answered by the backend, at most CONCURRENCY of them
      // without the answer reaching the client before the kill.
      expect(requests).toBeLessThanOrEqual(answered + CONCURRENCY);
      // At most the last turn's answered requests are uncharged (a turn holds at most the requests in flight).
      expect(requests).toBeGreaterThanOrEqual(answered - CONCURRENCY);
      const [usage] = await store.usage(
        [`key:${await keyIdOf(store, accountId)}`],
        '2000-01-01',
        '2100-01-01',
      );
      expect(usage?.billed).toBe(requests);
      // The restart folded the journal's tail: what the killed process kept after its last fold.
      expect(requests).toBeGreaterThan(before.billed);
      expect(folded(path).position).toBeGreaterThan(before.position);
      return requests;
    } finally {
      await store.close();
    }
  }

  async function keyIdOf(store: Store, accountId: string): Promise<string> {
    const [k] = await store.listKeys(accountId);
    return k?.id ?? '';
  }

  it('under billed load: nothing over-charged, balance = sum(ledger), at most the last turn uncharged', async () => {
    const s = await setUp('load');
    const g = await startGatewayProc(s.file, 3);
    gateways.push(g);
    let killed = false;
    const answered = await load(g, s.key, (n) => {
      if (n >= 1500 && !killed) {
        killed = true;
        void g.kill('SIGKILL');
      }
      return false;
    });
    expect(answered).toBeGreaterThanOrEqual(1500);
    const requests = await reopenAndCheck(s.path, s.accountId, answered);
    expect(requests).toBeGreaterThan(1000);
  });

  it('killed inside a fold (before its COMMIT): the replay applies that fold once', async () => {
    const s = await setUp('fold');
    const g = await startGatewayProc(s.file, 3, { GEOGATE_TEST_KILL_IN_FOLD: '6' });
    gateways.push(g);
    const answered = await load(g, s.key, () => false); // until the process kills itself in its 6th fold
    expect((await g.exited)?.signal).toBe('SIGKILL');
    expect(answered).toBeGreaterThan(0);
    await reopenAndCheck(s.path, s.accountId, answered);
  });
});
