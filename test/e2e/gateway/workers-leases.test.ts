/**
 * `workers: 2` on the embedded store with `admission: memory`: each worker holds leases on the file's rows (D33) and
 * journals its keeps (D34). The money tests of workers.test.ts, restated in D33/D34 form: charges are folded within
 * a second (read after the fold, not at once); after a kill -9 the journals are replayed on start (here: the store
 * opened as a restart's primary opens it), so at most the last turn's answers per worker are uncharged, never an
 * unanswered one charged; a worker killed under load is replaced, its journal replayed and its leases voided.
 */
import { utcDay } from '../../../gateway/core/clock';
import { killAll } from '../../helpers/gateway-processes';
import { chargedAmount, chargedRequests } from '../../helpers/ledger';
import { useBackendProcess } from '../harness';
import { billedAtOnce, billedOnce, startWorkers } from './workers-start';

const backend = useBackendProcess();

const setUp = (policy: 'A' | 'B', balance: number) =>
  startWorkers({ policy, balance, backendUrl: backend.url, admission: 'memory' });

test('20×N concurrent billed requests over 2 lease-holding workers with a balance worth N=10: exactly N served; charged within a fold', async () => {
  const N = 10;
  const s = await setUp('A', N);
  try {
    expect(s.workers).toHaveLength(2);
    const statuses = await billedAtOnce(s.gw.url, s.key, 20 * N);
    expect(statuses.filter((st) => st === 200)).toHaveLength(N);
    expect(statuses.filter((st) => st === 402)).toHaveLength(19 * N);
    // D34: the workers fold every second; read after it.
    let charged = -1;
    let balance: number | undefined;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const store = await s.peek();
      try {
        charged = chargedRequests(await store.ledger(s.accountId, 1000));
        balance = (await store.getAccount(s.accountId))?.balance;
      } finally {
        await store.close();
      }
      if (charged === N) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(charged).toBe(N); // D35: hourly rows' counts
    expect(balance).toBe(0);
  } finally {
    await s.cleanup();
  }
}, 120_000);

/**
 * Clients sending billed requests until told to stop; counts the 200s, and the requests sent but never answered
 * within 20 s (in doubt: maybe admitted and charged, maybe never past the cluster primary).
 */
function load(url: string, key: string, concurrency: number) {
  const state = { answered: 0, inDoubt: 0, stop: false, other: [] as number[] };
  const client = async (): Promise<void> => {
    while (!state.stop) {
      const r = await billedOnce(url, key, 20_000);
      if (r === 200) state.answered++;
      else if (r === 'timeout') state.inDoubt++;
      else if (r !== 'cut' && !state.stop) state.other.push(r); // 'cut': a connection cut by a kill, not answered
    }
  };
  const clients = Array.from({ length: concurrency }, client);
  return { state, done: () => Promise.allSettled(clients) };
}

test('kill -9 of the whole gateway (2 lease holders) during billed requests: replayed on start, nothing over-charged', async () => {
  const START = 100_000;
  const CONCURRENCY = 8;
  const s = await setUp('A', START);
  const l = load(s.gw.url, s.key, CONCURRENCY);
  try {
    while (l.state.answered < 300) await new Promise((r) => setImmediate(r));
    l.state.stop = true;
    await killAll(s.gw);
    await l.done();
    expect(l.state.other).toEqual([]);
    const store = await s.open();
    try {
      const ledger = await store.ledger(s.accountId, 100_000);
      const charges = chargedRequests(ledger);
      const balance = (await store.getAccount(s.accountId))?.balance;
      const today = utcDay(Date.now());
      const usage = await store.usage([`key:${s.keyId}`], today, today);
      // D34: kill -9 leaves at most the last turn's answers of each worker uncharged, and charges nothing unanswered
      // beyond the requests in flight.
      expect(charges).toBeGreaterThanOrEqual(l.state.answered - CONCURRENCY);
      expect(charges).toBeLessThanOrEqual(l.state.answered + CONCURRENCY);
      expect(chargedAmount(ledger)).toBe(charges);
      expect(balance).toBe(START - charges);
      expect(usage[0]?.billed).toBe(charges);
    } finally {
      await store.close();
    }
  } finally {
    l.state.stop = true;
    await s.cleanup();
  }
}, 120_000);

// It hung (skipped until now: 180 s and 240 s timeouts, no failed assertion) because a client request had no
// time-out: a connection the cluster primary had handed to the killed worker stays open, unanswered, for ever. The
// clients now give a request up after 20 s and count it in doubt (billedOnce in workers-start.ts).
test('kill -9 of one lease-holding worker under load: replaced, its journal replayed, its leases voided; balance = start − charges ≥ 0', async () => {
  const START = 200;
  const CONCURRENCY = 4;
  const s = await setUp('A', START);
  const l = load(s.gw.url, s.key, CONCURRENCY);
  try {
    while (l.state.answered < 50) await new Promise((r) => setTimeout(r, 5));
    const [victim] = s.workers as [number, number];
    process.kill(victim, 'SIGKILL');
    // Load goes on until the owner says the balance is spent.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && !l.state.other.includes(402)) await new Promise((r) => setTimeout(r, 20));
    l.state.stop = true;
    await l.done();
    expect(l.state.other.filter((st) => st !== 402)).toEqual([]);
    // Past the TTL, whatever the dead incarnation still held is the owner's again: served one by one until 402.
    await new Promise((r) => setTimeout(r, 11_000));
    for (let i = 0; i < 2 * CONCURRENCY + 2; i++) {
      const r = await billedOnce(s.gw.url, s.key, 20_000);
      if (r === 200) l.state.answered++;
      else if (r === 'timeout') l.state.inDoubt++;
      else break;
    }
    await s.gw.stop(); // SIGTERM: each worker folds and gives its leases back
    expect(await s.gw.exited).toEqual({ code: 0, signal: null });
    const store = await s.open();
    try {
      const ledger = await store.ledger(s.accountId, 100_000);
      const charges = chargedRequests(ledger);
      const balance = (await store.getAccount(s.accountId))?.balance ?? -1;
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(balance).toBe(START - charges);
      expect(chargedAmount(ledger)).toBe(charges);
      // Nothing charged that was not answered (kept), but for requests in doubt (sent, never answered: the killed
      // worker may have kept one before it died); at most the dead worker's last turn of answers uncharged.
      expect(charges).toBeLessThanOrEqual(l.state.answered + l.state.inDoubt);
      expect(charges).toBeGreaterThanOrEqual(l.state.answered - CONCURRENCY);
      expect(l.state.answered).toBeLessThanOrEqual(START); // never over-admitted
    } finally {
      await store.close();
    }
  } finally {
    l.state.stop = true;
    await s.cleanup();
  }
}, 240_000);
