/**
 * `workers: 2` on the embedded store (issue 12): two gateway processes on one port and one SQLite file. The
 * 20×-oversubscription (a balance worth N, 20×N concurrent billed requests over both workers: exactly N served and
 * charged) and kill -9 (the whole gateway, primary and workers, killed during billed requests: no answered request
 * lost, balance = start − charges) hold as with one process.
 */
import { utcDay } from '../../../gateway/core/clock';
import { childPids, killAll } from '../../helpers/gateway-processes';
import { chargedAmount, chargedRequests } from '../../helpers/ledger';
import { call, useBackendProcess } from '../harness';
import { billedAtOnce, startWorkers } from './workers-start';

const backend = useBackendProcess();

const setUp = (policy: 'A' | 'B', balance: number) =>
  startWorkers({ policy, balance, backendUrl: backend.url });

test('20×N concurrent billed requests over 2 workers with a balance worth N=10: exactly N served and charged', async () => {
  const N = 10;
  const s = await setUp('A', N);
  try {
    expect(s.workers).toHaveLength(2);
    const statuses = await billedAtOnce(s.gw.url, s.key, 20 * N);
    expect(statuses.filter((st) => st === 200)).toHaveLength(N);
    expect(statuses.filter((st) => st === 402)).toHaveLength(19 * N);
    const store = await s.open();
    try {
      expect(chargedRequests(await store.ledger(s.accountId, 1000))).toBe(N); // D35: hourly rows' counts
      expect((await store.getAccount(s.accountId))?.balance).toBe(0);
    } finally {
      await store.close();
    }
  } finally {
    await s.cleanup();
  }
}, 120_000);

test.each(['A', 'B'] as const)(
  'rule set %s, 2 workers: kill -9 of the whole gateway during billed requests loses no answered request',
  async (policy) => {
    const START = 100_000;
    const CONCURRENCY = 8;
    const s = await setUp(policy, START);
    let answered = 0;
    let stop = false;
    const client = async (): Promise<void> => {
      while (!stop) {
        try {
          const r = await call(s.gw.url, '/v1/reverse?lat=51.5&lon=-0.12', {
            headers: { 'x-api-key': s.key, connection: 'close' },
          });
          if (r.status === 200) answered++;
          else if (!stop) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          if (!stop) throw e;
        }
      }
    };
    const clients = Array.from({ length: CONCURRENCY }, client);
    try {
      while (answered < 300) await new Promise((r) => setImmediate(r));
      stop = true;
      await killAll(s.gw);
      await Promise.allSettled(clients);
      const store = await s.open();
      try {
        // D35: charges are hourly rows with a count; each request 1 unit.
        const ledger = await store.ledger(s.accountId, 100_000);
        const charges = chargedRequests(ledger);
        const balance = (await store.getAccount(s.accountId))?.balance;
        const today = utcDay(Date.now());
        const usage = await store.usage([`key:${s.keyId}`], today, today);
        expect(charges).toBeGreaterThanOrEqual(answered);
        expect(charges).toBeLessThanOrEqual(answered + CONCURRENCY);
        expect(chargedAmount(ledger)).toBe(charges);
        expect(balance).toBe(START - charges);
        expect(usage[0]?.billed).toBe(charges);
      } finally {
        await store.close();
      }
    } finally {
      stop = true;
      await s.cleanup();
    }
  },
  120_000,
);

test('a worker killed with -9 is replaced and the gateway keeps serving; SIGTERM drains every worker and exits 0', async () => {
  const s = await setUp('A', 1_000);
  try {
    const [victim, other] = s.workers as [number, number];
    process.kill(victim, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    let replaced: number[] = [];
    while (Date.now() < deadline) {
      replaced = childPids(s.gw.pid);
      if (replaced.length === 2 && !replaced.includes(victim)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(replaced).toHaveLength(2);
    expect(replaced).toContain(other);
    expect(replaced).not.toContain(victim);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(s.gw.url, '/v1/reverse?lat=51.5&lon=-0.12', { headers: { 'x-api-key': s.key } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    await s.gw.stop(); // SIGTERM to the primary
    expect(await s.gw.exited).toEqual({ code: 0, signal: null });
    for (const p of replaced) expect(childPids(p)).toEqual([]); // gone: /proc has no such process
  } finally {
    await s.cleanup();
  }
}, 120_000);
