/**
 * The start of the `workers: 2` e2e tests (workers.test.ts, workers-leases.test.ts): a store file with one
 * pay-as-you-go key whose account holds `balance`, the gateway config beside it, and the gateway with its two workers
 * started and listening. `admission: 'memory'` makes each worker a lease holder (D33).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { createStore } from '../../../gateway/store';
import { killAll, waitForChildren } from '../../helpers/gateway-processes';
import { call, startGatewayProc } from '../harness';

const PEPPER = 'workers-pepper-0123456789abcdef';

export interface WorkersStart {
  policy: 'A' | 'B';
  /** The account's start balance (minor units; one request costs 1). */
  balance: number;
  /** The backend's URL (useBackendProcess() in the test file). */
  backendUrl: string;
  /** The store's admission: direct (the default) or decided in memory by lease-holding workers. */
  admission?: 'direct' | 'memory';
}

/**
 * A fresh embedded store at `dbPath` with one account holding `balance` and one pay-as-you-go key hashed under
 * `pepper`; the store is closed again, for a gateway process to open.
 */
export async function seedBilledKey(
  dbPath: string,
  email: string,
  balance: number,
  pepper: string,
): Promise<{ key: string; keyId: string; accountId: string }> {
  const seed = await createStore({ kind: 'embedded', path: dbPath }, { clock: systemClock });
  try {
    const acc = await seed.createAccount({ email, name: 'Seed' }, Date.now());
    await seed.credit(acc.id, balance, 'start', Date.now());
    const key = generateKey();
    const k = await seed.createKey(
      { accountId: acc.id, hash: hashKey(key, pepper), prefix: keyPrefix(key), kind: 'payg' },
      Date.now(),
    );
    return { key, keyId: k.id, accountId: acc.id };
  } finally {
    await seed.close();
  }
}

/** The gateway with `workers: 2` over a fresh store file; `cleanup` kills it (and its workers) and removes the file. */
export async function startWorkers(o: WorkersStart) {
  const memory = o.admission === 'memory';
  const dir = mkdtempSync(join(tmpdir(), memory ? 'geogate-workers-leases-' : 'geogate-workers-'));
  const dbPath = join(dir, 'geogate.db');
  const { key, keyId, accountId } = await seedBilledKey(dbPath, 'workers@example.com', o.balance, PEPPER);
  const file = join(dir, 'gateway.yaml');
  writeFileSync(
    file,
    [
      `policy: ${o.policy}`,
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: workers-admin-token-0123 }',
      `backend: { url: "${o.backendUrl}" }`,
      `store: { kind: embedded, path: "${dbPath}"${memory ? ', admission: memory' : ''} }`,
      `keyPepper: "${PEPPER}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      'limits: { freePerDay: 0 }',
      'log: { level: silent }',
      'drain: { delayMs: 0 }',
      'workers: 2',
    ].join('\n'),
  );
  const gw = await startGatewayProc(file, 3);
  const cleanup = async () => {
    await killAll(gw);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const workers = await waitForChildren(gw.pid, 2);
    // Each worker prints its three URL lines once it listens; the second starts after the first listens.
    const deadline = Date.now() + 60_000;
    while (gw.urls.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(gw.urls).toHaveLength(6);
    // Opened with the gateway stopped: as a restart's primary opens it (with leases, the workers' journals are
    // folded, D34).
    const open = () =>
      createStore(
        { kind: 'embedded', path: dbPath, ...(memory ? { admission: 'memory' as const } : {}) },
        { clock: systemClock },
      );
    // Read while the gateway runs (direct: it replays nothing).
    const peek = () => createStore({ kind: 'embedded', path: dbPath }, { clock: systemClock });
    return { gw, workers, key, accountId, keyId, dbPath, open, peek, cleanup };
  } catch (err) {
    await cleanup(); // a start that did not finish leaves no process behind
    throw err;
  }
}

/** The billed request every workers test sends. */
export const BILLED_PATH = '/v1/reverse?lat=51.5&lon=-0.12';

/** `count` billed requests at once; their statuses. */
export async function billedAtOnce(url: string, key: string, count: number): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, () => call(url, BILLED_PATH, { headers: { 'x-api-key': key } })),
  );
  return answers.map((a) => a.status);
}

/**
 * One billed request on its own connection, given up after `timeoutMs`: its status, 'cut' (the connection failed:
 * never answered) or 'timeout' (sent, no answer: in doubt). A worker killed with -9 can leave a connection that the
 * cluster primary accepted and handed to it hanging for ever (the primary keeps its copy of the socket until the
 * worker says it took it, and a dead worker never says); without a time-out such a client never returns.
 */
export function billedOnce(url: string, key: string, timeoutMs: number): Promise<number | 'cut' | 'timeout'> {
  return new Promise((resolve) => {
    let timedOut = false;
    const req = http.request(
      new URL(BILLED_PATH, url),
      { headers: { 'x-api-key': key, connection: 'close' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(timedOut ? 'timeout' : 'cut'));
      },
    );
    req.setTimeout(timeoutMs, () => {
      timedOut = true;
      req.destroy(); // the socket closes: nothing of this request stays open in the test process
    });
    req.on('error', () => resolve(timedOut ? 'timeout' : 'cut'));
    req.end();
  });
}
