/**
 * Acceptance 12 (crash): `kill -9` of a gateway process during a burst of billed requests. The gateway (one worker)
 * owns its embedded store and decides in memory (D33, D34): reopened as the restarted gateway opens it (its journal
 * folded), at most the last turn's answered requests are uncharged and nothing unanswered beyond the requests in
 * flight is charged: answered − in-flight ≤ charged ≤ answered + in-flight (the client's concurrency), balance =
 * start − charged = sum(ledger); the usage history's billed count equals the requests charged. Charges are rows per
 * key and hour (D35), so the test counts money, not rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../gateway/core/clock';
import { utcDay } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { call, startGatewayProc, useBackendProcess } from '../harness';
import { seedBilledKey } from './workers-start';
import { chargedAmount, chargedRequests } from '../../helpers/ledger';

const PEPPER = 'kill9-pepper-0123456789abcdef';
const CONCURRENCY = 8;
const START_BALANCE = 100_000;

const backend = useBackendProcess();

test.each(['A', 'B'] as const)(
  'rule set %s: kill -9 during billed requests loses no answered request',
  async (policy) => {
    const dir = mkdtempSync(join(tmpdir(), 'geogate-kill9-'));
    const dbPath = join(dir, 'geogate.db');
    const { key, keyId, accountId } = await seedBilledKey(dbPath, 'kill9@example.com', START_BALANCE, PEPPER);

    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      [
        `policy: ${policy}`,
        'listen: { host: 127.0.0.1, port: 0 }',
        'admin: { listen: { host: 127.0.0.1, port: 0 }, token: kill9-admin-token-0123 }',
        `backend: { url: "${backend.url}" }`,
        `store: { kind: embedded, path: "${dbPath}" }`,
        `keyPepper: "${PEPPER}"`,
        'hosts: [{ name: localhost, adapter: native }]',
        'limits: { freePerDay: 0 }',
        'log: { level: silent }',
      ].join('\n'),
    );
    const gw = await startGatewayProc(file, 3);
    let answered = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        try {
          const r = await call(gw.url, '/v1/reverse?lat=51.5&lon=-0.12', {
            headers: { 'x-api-key': key, connection: 'close' },
          });
          if (r.status === 200) answered++;
          else if (!stop) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          if (!stop) throw e;
        }
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, worker);
    while (answered < 300) await new Promise((r) => setImmediate(r));
    stop = true;
    await gw.kill('SIGKILL');
    await Promise.allSettled(workers);

    const store = await createStore(
      { kind: 'embedded', path: dbPath, admission: 'memory' },
      { clock: systemClock },
    );
    try {
      // D35: charges are hourly rows with a count; each request 1 unit.
      const ledger = await store.ledger(accountId, 100_000);
      const charges = chargedRequests(ledger);
      const balance = (await store.getAccount(accountId))?.balance;
      const today = utcDay(Date.now());
      const usage = await store.usage([`key:${keyId}`], today, today);
      // D34: at most the last turn's answered requests uncharged; nothing beyond the requests in flight charged.
      expect(charges).toBeGreaterThanOrEqual(answered - CONCURRENCY);
      expect(charges).toBeLessThanOrEqual(answered + CONCURRENCY);
      expect(chargedAmount(ledger)).toBe(charges);
      expect(balance).toBe(START_BALANCE - charges);
      expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(balance);
      expect(usage[0]?.billed).toBe(charges);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
