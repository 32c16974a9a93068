/**
 * `workers: 2` on the shared store (issue 12), with the real processes (`npm run build:ts` first): one gateway of two
 * worker processes on one port. The 20×-oversubscription (a balance worth N, 20×N concurrent billed requests: exactly
 * N served and charged) and kill -9 (primary and workers killed during billed load: reconcile finds no drift, every
 * answered request is charged once, at most the requests in flight are charged without an answer) hold as with one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { reconcile } from '../../../gateway/store/shared';
import { call } from '../../helpers/gateway-harness';
import { useTempDir } from '../../helpers/fixture';
import {
  killAll,
  startGatewayProc,
  useBackendProcess,
  waitForChildren,
  type RunningProcess,
} from '../../helpers/gateway-processes';
import { describeShared, useSharedEnv } from './fixture';
import { chargedAmount, chargedRequests } from '../../helpers/ledger';

jest.setTimeout(120_000);

const PEPPER = 'test-pepper-0123456789abcdef';

describeShared('a gateway of 2 worker processes on the shared store', () => {
  const gateways: RunningProcess[] = [];
  afterEach(async () => {
    for (const g of gateways.splice(0)) await killAll(g);
  }); // declared first: runs before the env's and the backend's cleanup
  const { env } = useSharedEnv('workers');
  const backend = useBackendProcess();
  let dir: string;
  useTempDir('gg-workers-', (d) => (dir = d));

  /** Start the 2-worker gateway and seed an account holding `balance` with a pay-as-you-go key. */
  async function start(balance: number) {
    const config = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      backend: { url: backend.url, timeoutMs: 5000 },
      store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
      keyPepper: PEPPER,
      hosts: [{ name: 'localhost', adapter: 'native' }],
      limits: { freePerDay: 0 },
      log: { level: 'silent' },
      drain: { delayMs: 0 },
      workers: 2,
    };
    const file = join(dir, 'geogate.yaml');
    writeFileSync(file, JSON.stringify(config)); // JSON is YAML
    const gw = await startGatewayProc(file, 3);
    gateways.push(gw);
    expect(await waitForChildren(gw.pid, 2)).toHaveLength(2);
    const deadline = Date.now() + 60_000; // both workers print their three URL lines once they listen
    while (gw.urls.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(gw.urls).toHaveLength(6);
    const store = await env.open();
    const acc = await store.createAccount({ email: `w${balance}@example.org`, name: 'W' }, Date.now());
    await store.credit(acc.id, balance, null, Date.now());
    const key = generateKey();
    await store.createKey(
      { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
      Date.now(),
    );
    return { gw, store, accountId: acc.id, key };
  }

  it('20×N concurrent billed requests with a balance worth N=10: exactly N served and charged (D16)', async () => {
    const N = 10;
    const s = await start(N);
    const answers = await Promise.all(
      Array.from({ length: 20 * N }, () =>
        call(s.gw.url, '/v1/reverse?lat=48.8584&lon=2.2945', { headers: { 'x-api-key': s.key } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((st) => st === 200)).toHaveLength(N);
    expect(statuses.filter((st) => st === 402)).toHaveLength(19 * N);
    const report = await reconcile(s.store);
    expect(report.drifts).toEqual([]);
    expect(chargedRequests(await s.store.ledger(s.accountId, 1000))).toBe(N); // D35: hourly rows' counts
    expect((await s.store.getAccount(s.accountId))?.balance).toBe(0);
  });

  it('kill -9 of the whole gateway during billed load: no drift, every answered request charged once', async () => {
    const START = 1_000_000;
    const CONCURRENCY = 16;
    const s = await start(START);
    let answered = 0;
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const a = await call(s.gw.url, '/v1/reverse?lat=48.8584&lon=2.2945', {
            headers: { 'x-api-key': s.key },
          });
          if (a.status === 200) answered += 1;
        } catch {
          // the killed gateway's connections
        }
      }
    };
    const load = Promise.all(Array.from({ length: CONCURRENCY }, client));
    while (answered < 300) await new Promise((r) => setTimeout(r, 10));
    running = false;
    await killAll(s.gw);
    await load;

    const report = await reconcile(s.store);
    expect(report.drifts).toEqual([]);
    // D35: charges are hourly rows with a count (the price is 1 unit).
    const ledger = await s.store.ledger(s.accountId, 100_000);
    const charges = chargedRequests(ledger);
    expect(chargedAmount(ledger)).toBe(charges);
    expect((await s.store.getAccount(s.accountId))?.balance).toBe(START - charges);
    expect(charges).toBeGreaterThanOrEqual(answered);
    expect(charges - answered).toBeLessThanOrEqual(CONCURRENCY);
  });
});
