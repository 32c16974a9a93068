/**
 * `npm run bench:pipeline` (`node dist/bench/micro/pipeline-cpu.js [rounds]`): CPU per request of geogate's own request
 * path, in process, without sockets or the backend: the pipeline (gateway/lib/request-path.ts, as the listener and
 * the library run it) over a real embedded store with the memory owner, with a forwarder that answers the backend's
 * recorded record at once, driven with `PIPELINE_BATCH` requests per event-loop turn (default 8, what 32 connections
 * give one turn). What it leaves out is what the floor (bench/lib/bare-proxy.ts) pays too: HTTP parsing, socket
 * writes, the undici client. So this is the "gateway over the floor" share of `npm run bench:gateway`, measured
 * without the load generator and with little noise from a busy machine: it steers the hot-path work (D37) between
 * two runs of bench:gateway. Scenarios: keyed and billed (a funded account, freePerDay 0), anonymous from one
 * address. Prints CPU µs per request (process.cpuUsage, user + system) per round and the median.
 * Env: PIPELINE_N (requests per round, default 40,000), PIPELINE_BATCH.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { compileConfig } from '../../gateway/config/compile';
import { validateConfig } from '../../gateway/config/load';
import { systemClock } from '../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import type { Forwarder } from '../../gateway/http/backend';
import { admissionStore, createRequestPath } from '../../gateway/lib/request-path';
import { GatewayMetrics } from '../../gateway/metrics/gateway-metrics';
import { createStore } from '../../gateway/store';
import { GEOGATE } from '../lib/replay-bodies';
import { runBench } from '../lib/services';

const ROUNDS = Number(process.argv[2] ?? 5);
const N = Number(process.env['PIPELINE_N'] ?? 40_000);
const BATCH = Number(process.env['PIPELINE_BATCH'] ?? 8);
const PEPPER = 'bench-pipeline-pepper-0123456789';
const URL_PATH = '/v1/reverse?lat=48.8584&lon=2.2945';

/** The part of Node's ServerResponse the pipeline uses; `done` is called when the answer is complete. */
class Answer extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  constructor(private readonly done: (status: number) => void) {
    super();
  }
  setHeader(): this {
    return this;
  }
  hasHeader(): boolean {
    return false;
  }
  writeHead(status: number): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }
  end(): this {
    this.writableFinished = true;
    this.done(this.statusCode);
    return this;
  }
  destroy(): this {
    return this;
  }
}

const SOCKET = { remoteAddress: '127.0.0.1', remotePort: 40_000, remoteFamily: 'IPv4' };

/** A request as Node's HTTP server hands it over (the fields the pipeline reads). */
function request(headers: Record<string, string>): IncomingMessage {
  const req = new EventEmitter() as unknown as IncomingMessage & { socket: unknown };
  Object.assign(req, { url: URL_PATH, method: 'GET', headers, socket: SOCKET, httpVersion: '1.1' });
  return req;
}

/** A forwarder that answers the recorded backend record at once (no socket, no client). */
function recordedBackend(): Forwarder {
  const forward = (() =>
    Promise.resolve({ kind: 'answer', status: 200, body: GEOGATE })) as unknown as Forwarder;
  forward.close = () => undefined;
  return forward;
}

interface Scenario {
  name: string;
  billed: boolean;
}

async function measure(s: Scenario): Promise<number[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-pipeline-'));
  const doc = {
    policy: 'A',
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'bench-admin-token-0123456' },
    backend: { url: 'http://127.0.0.1:9' },
    store: { kind: 'embedded', path: path.join(dir, 'g.db') },
    keyPepper: PEPPER,
    hosts: [{ name: 'localhost', adapter: 'native' }],
    limits: { freePerDay: s.billed ? 0 : 1_000_000_000 },
    log: { level: 'warn' },
  };
  const config = compileConfig(validateConfig(doc, 'bench.yaml', {}), 'bench.yaml');
  const clock = systemClock;
  const store = await createStore(
    {
      kind: 'embedded',
      path: path.join(dir, 'g.db'),
      admission: 'memory',
      reservationTimeoutMs: config.reservationTimeoutMs,
    },
    { clock },
  );
  const metrics = new GatewayMetrics(config.hosts);
  const logger = pino({ level: 'warn' });
  const rp = createRequestPath({
    config,
    store: admissionStore(store, metrics),
    clock,
    logger,
    metrics,
    forward: recordedBackend(),
  });
  const host = config.hosts[0];
  if (host === undefined) throw new Error('no host');
  const headers: Record<string, string> = { host: 'localhost' };
  if (s.billed) {
    const now = clock.now();
    const acc = await store.createAccount({ email: 'pipeline@example.org' }, now);
    await store.credit(acc.id, 1_000_000_000, null, now);
    const key = generateKey();
    await store.createKey(
      { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
      now,
    );
    headers['x-api-key'] = key;
  }
  let bad = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const res = new Answer((status) => {
        if (status !== 200) bad++;
        resolve();
      });
      void rp.handle(host, request(headers), res as unknown as ServerResponse);
    });
  const run = async (n: number): Promise<number> => {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i += BATCH) {
      const turn: Promise<void>[] = [];
      for (let j = 0; j < BATCH; j++) turn.push(one());
      await Promise.all(turn);
      // A new event-loop turn per batch, as sockets give (the journal writes once per turn).
      await new Promise<void>((r) => setImmediate(r));
    }
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / n;
  };
  try {
    await run(Math.min(N, 10_000)); // warm-up: JIT and the store's state
    const out: number[] = [];
    for (let r = 0; r < ROUNDS; r++) out.push(await run(N));
    if (bad > 0) throw new Error(`${s.name}: ${bad} answers were not 200`);
    return out;
  } finally {
    rp.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.floor(a.length / 2)] as number;
};

runBench(async () => {
  const scenarios: Scenario[] = [
    { name: 'keyed, billed', billed: true },
    { name: 'anonymous, one address', billed: false },
  ];
  console.log(
    `pipeline in process (no sockets, recorded backend), ${N} requests per round, ${BATCH} per turn, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const s of scenarios) {
    const us = await measure(s);
    console.log(
      `${s.name}: median ${median(us).toFixed(1)} µs/request (rounds ${us.map((u) => u.toFixed(1)).join(', ')})`,
    );
  }
});
