/**
 * D26 + D11 for passthrough answers that take long, through a running gateway and real sockets, on both stores: the
 * charge is decided when the backend's status line arrives, so an answer that trickles, or that a slow reader holds
 * back, for longer than the store's reservation timeout (the crash sweeper's horizon, moved past on the gateway's
 * clock) is charged once; a 5xx and a client that leaves before the status line are still released. A route's total
 * deadline cuts an answer whose backend went silent after its status line; a deadline before the status line is a
 * 504, released. A backend's passthrough answers hold at most `passthroughConnections` of its connections, so slow
 * readers cannot take the connections its translated calls need.
 */
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { compileConfig, validateConfig } from '../../../runtime/config';
import { ManualClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { createGateway, type Gateway } from '../../../gateway/server';
import type { SharedStore } from '../../../gateway/store/shared';
import { SHARDS } from '../../../gateway/store/shared/layout';
import type { Store } from '../../../gateway/store/ports';
import { call, PEPPER, T0, type Answer } from '../../helpers/gateway-harness';
import { describeShared, useSharedEnv } from '../shared/fixture';
import { gatewayStarter } from './fixture';
import { ALLOWED, BIG, FIRST, HOSTILE, startStreamBackend, type StreamBackend } from './stream-backend';

jest.setTimeout(60_000);

/** What a suite needs of a running gateway on one store. */
interface Stand {
  mainUrl: string;
  store: Store;
  clock: ManualClock;
  reservationTimeoutMs: number;
  price: number;
  /** An account with `balance` and a key of it. */
  customer(balance: number): Promise<{ accountId: string; key: string }>;
  /** Admissions the store holds in flight (neither kept nor released). */
  inflight(): Promise<number>;
  /** Run the store's crash sweeper now; how many admissions it released. */
  sweep(): Promise<number>;
}

/** The config both stores share: every request billed, a host whose only routes are passthrough. */
const routes = (
  backendUrl: string,
  extra: Record<string, unknown> = {},
  more: Record<string, unknown>[] = [],
): Record<string, unknown> => ({
  limits: { freePerDay: 0 },
  backends: { files: { kind: 'geogate', url: `${backendUrl}/`, timeoutMs: 2000, ...extra } },
  hosts: [
    { name: 'localhost', adapter: 'native', backend: 'files' },
    {
      name: 'files.localhost',
      adapter: 'native',
      backend: 'files',
      passthrough: [{ path: '/files/*', methods: ['GET', 'POST'], cost: 1 }, ...more],
    },
  ],
});

/** A passthrough request whose reading the test drives. */
interface Reader {
  status: number;
  headers: http.IncomingHttpHeaders;
  res: http.IncomingMessage;
  /** Resolves at the first body chunk. */
  first: Promise<void>;
  /** Resolves when the answer ended (complete) or broke off (not complete), with the bytes read. */
  done: Promise<{ bytes: number; complete: boolean }>;
}

/**
 * Open a passthrough request on `files.localhost`; resolves with its status line. `slow`: the reader stops reading
 * after the first chunk (`res.resume()` reads on).
 */
function open(base: string, path: string, key: string, slow = false): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const u = new URL(`${path}?key=${key}`, base);
    const req = http.get(u, { headers: { host: 'files.localhost' }, agent: false }, (res) => {
      let bytes = 0;
      let onFirst: () => void = () => undefined;
      const first = new Promise<void>((r) => (onFirst = r));
      const done = new Promise<{ bytes: number; complete: boolean }>((r) => {
        res.on('end', () => r({ bytes, complete: true }));
        res.on('close', () => r({ bytes, complete: res.complete }));
        res.on('error', () => r({ bytes, complete: false }));
      });
      res.on('data', (c: Buffer) => {
        if (bytes === 0) {
          if (slow) res.pause();
          onFirst();
        }
        bytes += c.length;
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        res,
        first,
        done,
      });
    });
    req.on('error', reject);
  });
}

/** Poll `probe` every 10 ms until it holds or `limitMs` passed; whether it held. */
async function until(probe: () => boolean | Promise<boolean>, limitMs = 3_000): Promise<boolean> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > limitMs) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/** A growing count once it stopped growing (unchanged over 3 polls 100 ms apart). */
async function settled(count: () => number): Promise<number> {
  let seen = -1;
  let same = 0;
  while (same < 3) {
    await new Promise((r) => setTimeout(r, 100));
    same = count() === seen ? same + 1 : 0;
    seen = count();
  }
  return seen;
}

async function balance(s: Stand, accountId: string): Promise<number> {
  return (await s.store.getAccount(accountId))?.balance ?? NaN;
}

/** The billing tests, on one store. */
function chargeSuite(stand: () => Stand, backend: () => StreamBackend): void {
  test('an answer that trickles past the reservation timeout is charged once, and the sweeper leaves it alone', async () => {
    const s = stand();
    const { accountId, key } = await s.customer(100);
    const a = await open(s.mainUrl, '/files/held/trickle', key);
    expect(a.status).toBe(200);
    await a.first;
    // The charge was decided at the status line: nothing stays in flight for the sweeper while the answer flows.
    await until(async () => (await s.inflight()) === 0);
    s.clock.advance(s.reservationTimeoutMs + 1_000);
    const released = await s.sweep();
    backend().held.pop()?.end(Buffer.alloc(FIRST, 0x7a));
    expect(await a.done).toEqual({ bytes: 2 * FIRST, complete: true });
    expect(await balance(s, accountId)).toBe(100 - s.price);
    expect(released).toBe(0);
  });

  test('a slow reader of a 24 MB answer, read past the reservation timeout, is charged once', async () => {
    const s = stand();
    const { accountId, key } = await s.customer(100);
    const a = await open(s.mainUrl, '/files/big', key, true);
    await a.first;
    // The reader holds the answer back: the backend's writes stall below its size (socket buffers full).
    expect(await settled(() => backend().bigSent())).toBeLessThan(BIG);
    await until(async () => (await s.inflight()) === 0);
    s.clock.advance(s.reservationTimeoutMs + 1_000);
    const released = await s.sweep();
    a.res.resume();
    expect(await a.done).toEqual({ bytes: BIG, complete: true });
    expect(await balance(s, accountId)).toBe(100 - s.price);
    expect(released).toBe(0);
  });

  test('D11 still holds: a client that leaves before the status line is released', async () => {
    const s = stand();
    const { accountId, key } = await s.customer(100);
    const req = http.get(new URL(`/files/late?key=${key}`, s.mainUrl), {
      headers: { host: 'files.localhost' },
      agent: false,
    });
    req.on('error', () => undefined);
    // The gateway admitted it (the balance moved) and waits for the backend's status line; the client leaves.
    expect(await until(async () => (await balance(s, accountId)) === 100 - s.price)).toBe(true);
    req.destroy();
    expect(await until(async () => (await balance(s, accountId)) === 100)).toBe(true);
    expect(await s.inflight()).toBe(0);
  });
}

describe('embedded store', () => {
  const start = gatewayStarter();
  let backend: StreamBackend;
  let s: Stand;
  beforeAll(async () => {
    backend = await startStreamBackend();
    const h = await start({
      policy: 'A',
      backendUrl: backend.url,
      sweeper: true,
      config: routes(backend.url),
    });
    const db = new Database(join(h.dir, 'geogate.db'), { readonly: true });
    afterAllClose.push(() => db.close());
    s = {
      mainUrl: h.mainUrl,
      store: h.store,
      clock: h.clock,
      reservationTimeoutMs: h.config.reservationTimeoutMs,
      price: h.config.rules.limits.pricePerRequest,
      customer: async (b) => {
        const acc = await h.account({ balance: b });
        return { accountId: acc.id, key: (await h.key(acc.id)).key };
      },
      inflight: async () =>
        (db.prepare('SELECT count(*) AS n FROM embedded_inflight').get() as { n: number }).n,
      sweep: async () => (h.store as unknown as { sweep(): number }).sweep(),
    };
  });
  const afterAllClose: (() => void)[] = [];
  afterAll(async () => {
    afterAllClose.forEach((f) => f());
    await backend.close();
  });

  chargeSuite(
    () => s,
    () => backend,
  );
});

describeShared('shared store', () => {
  let backend: StreamBackend;
  let gateway: Gateway;
  let s: Stand;
  afterAll(async () => {
    await gateway?.close();
    await backend?.close();
  }); // declared first: runs before the env's cleanup
  const { env } = useSharedEnv('passans');
  beforeAll(async () => {
    backend = await startStreamBackend();
    const doc = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
      keyPepper: PEPPER,
      ...routes(backend.url),
    };
    const config = compileConfig(validateConfig(doc, 'passans.yaml', {}), 'passans.yaml');
    const clock = new ManualClock(T0);
    const store: SharedStore = await env.open({ reservationTimeoutMs: config.reservationTimeoutMs, clock });
    gateway = createGateway({ config, store, clock, logger: pino({ level: 'silent' }) });
    const urls = await gateway.listen();
    let seq = 0;
    s = {
      mainUrl: urls.mainUrl,
      store,
      clock,
      reservationTimeoutMs: config.reservationTimeoutMs,
      price: config.rules.limits.pricePerRequest,
      customer: async (b) => {
        const acc = await store.createAccount(
          { email: `pass${++seq}-${Date.now()}@example.org` },
          clock.now(),
        );
        await store.credit(acc.id, b, null, clock.now());
        const key = generateKey();
        await store.createKey(
          { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
          clock.now(),
        );
        return { accountId: acc.id, key };
      },
      inflight: async () => {
        let n = 0;
        for (let shard = 0; shard < SHARDS; shard++)
          n += Number(await store.redis.zcard(store.layout.inflight(shard)));
        return n;
      },
      sweep: () => store.sweep(),
    };
  });

  chargeSuite(
    () => s,
    () => backend,
  );
});

describe('deadlines and the connection cap (embedded store)', () => {
  const start = gatewayStarter();
  /** `/short/*`: a route whose answers must be whole within 1 s (under the backend's 2 s timeout). */
  const SHORT = [{ path: '/short/*', cost: 1, deadlineMs: 1_000 }];
  let backend: StreamBackend;
  beforeEach(async () => (backend = await startStreamBackend()));
  afterEach(() => backend.close());

  test("a backend silent after its status line is cut at the route's deadline; the backend's socket is freed; charged once", async () => {
    const h = await start({ policy: 'A', backendUrl: backend.url, config: routes(backend.url, {}, SHORT) });
    const acc = await h.account({ balance: 100 });
    const { key } = await h.key(acc.id);
    const a = await open(h.mainUrl, '/short/held/silent', key);
    expect(a.status).toBe(200);
    await a.first;
    // The route's deadline (1 s) ends it: the client sees the answer break off, never a complete one.
    expect(await a.done).toEqual({ bytes: FIRST, complete: false });
    const upstream = backend.held[0] as http.ServerResponse;
    expect(await until(() => upstream.destroyed || upstream.socket === null)).toBe(true);
    expect((await h.store.getAccount(acc.id))?.balance).toBe(100 - h.config.rules.limits.pricePerRequest);
  });

  test('a deadline that ends before the status line is a 504, released', async () => {
    const h = await start({ policy: 'A', backendUrl: backend.url, config: routes(backend.url, {}, SHORT) });
    const acc = await h.account({ balance: 100 });
    const { key } = await h.key(acc.id);
    const a = await call(h.mainUrl, `/short/late?key=${key}`, { headers: { host: 'files.localhost' } });
    expect(a.status).toBe(504);
    expect((await h.store.getAccount(acc.id))?.balance).toBe(100);
  });

  test('the deadline defaults to 60 s per route', async () => {
    const h = await start({ policy: 'A', backendUrl: backend.url, config: routes(backend.url, {}, SHORT) });
    const files = h.config.hostsByName.get('files.localhost');
    expect(files?.passthrough.map((r) => [r.pattern, r.deadlineMs])).toEqual([
      ['/files/*', 60_000],
      ['/short/*', 1_000],
    ]);
  });

  test("slow readers hold at most passthroughConnections of a backend's connections: translated calls still answer", async () => {
    // A backend that takes 3 connections at a time; passthrough may hold 2 of them.
    backend.limit(3);
    const h = await start({
      policy: 'A',
      backendUrl: backend.url,
      config: routes(backend.url, { passthroughConnections: 2 }),
    });
    const acc = await h.account({ balance: 100 });
    const { key } = await h.key(acc.id);
    const held = await Promise.all([1, 2].map(() => open(h.mainUrl, '/files/big', key, true)));
    await Promise.all(held.map((r) => r.first));
    // A third slow reader waits for one of the two connections instead of taking a third.
    let third: Reader | null = null;
    const thirdOpen = open(h.mainUrl, '/files/big', key).then((r) => (third = r));
    expect(await until(() => backend.connections() === 2)).toBe(true);
    const translated = await call(h.mainUrl, `/v1/reverse?lat=40.758&lon=-73.9855&key=${key}`);
    expect(translated.status).toBe(200);
    expect(third).toBeNull();
    // A form POST waits for a connection too, and is sent (its credential stripped) once it has one.
    const post = call(h.mainUrl, '/files/echo', {
      method: 'POST',
      headers: { host: 'files.localhost', 'content-type': 'application/x-www-form-urlencoded' },
      body: `a=1&key=${key}&b=2`,
    });
    for (const r of held) r.res.resume();
    for (const r of held) expect(await r.done).toEqual({ bytes: BIG, complete: true });
    const last = await thirdOpen;
    expect(last.status).toBe(200);
    expect(await last.done).toEqual({ bytes: BIG, complete: true });
    expect(await post).toMatchObject({ status: 200, text: 'a=1&b=2' });
    expect((await h.store.getAccount(acc.id))?.balance).toBe(100 - 5 * h.config.rules.limits.pricePerRequest);
  });

  test('a request that waits for a connection past the timeout is a 504, released, and never reaches the backend', async () => {
    const h = await start({
      policy: 'A',
      backendUrl: backend.url,
      config: routes(backend.url, { passthroughConnections: 1 }),
    });
    const acc = await h.account({ balance: 100 });
    const { key } = await h.key(acc.id);
    const holder = await open(h.mainUrl, '/files/big', key, true);
    await holder.first;
    const waited = await call(h.mainUrl, `/files/late?key=${key}`, { headers: { host: 'files.localhost' } });
    expect(waited.status).toBe(504);
    holder.res.resume();
    expect(await holder.done).toEqual({ bytes: BIG, complete: true });
    // The pool's socket is free again: the next request is served on it, and the timed-out one was never sent.
    const next = await call(h.mainUrl, `/files/echo?key=${key}`, { headers: { host: 'files.localhost' } });
    expect(next.status).toBe(200);
    expect(backend.received).toEqual(['/files/big', '/files/echo']);
    expect((await h.store.getAccount(acc.id))?.balance).toBe(100 - 2 * h.config.rules.limits.pricePerRequest);
  });
});

describe("a backend's response headers: an allowlist, the route's extras, the gateway's own always win", () => {
  const start = gatewayStarter();
  let backend: StreamBackend;
  let a: Answer;
  let plain: Answer;
  beforeAll(async () => {
    backend = await startStreamBackend();
    const h = await start({
      policy: 'A',
      backendUrl: backend.url,
      config: {
        backends: {
          files: { kind: 'http', url: `${backend.url}/`, headers: { 'X-Upstream-Key': 'operator-secret-1' } },
        },
        hosts: [
          { name: 'localhost', adapter: 'native' },
          {
            name: 'files.localhost',
            adapter: 'native',
            backend: 'files',
            passthrough: [{ path: '/files/*', responseHeaders: ['X-Total-Count'] }, { path: '/plain/*' }],
          },
        ],
      },
    });
    const { key } = await h.key((await h.account({ balance: 100 })).id);
    a = await call(h.mainUrl, `/files/headers?key=${key}`, { headers: { host: 'files.localhost' } });
    plain = await call(h.mainUrl, `/plain/headers?key=${key}`, { headers: { host: 'files.localhost' } });
  });
  afterAll(() => backend.close());

  /** What the client gets instead of each hostile header: the gateway's own, or nothing. */
  const GATEWAY_OWN: Record<string, (v: string | string[] | undefined) => boolean> = {
    'access-control-allow-origin': (v) => v === '*',
    'x-request-id': (v) => typeof v === 'string' && v !== HOSTILE['x-request-id'],
    ratelimit: (v) => v !== HOSTILE['ratelimit'],
    'ratelimit-policy': (v) => v !== HOSTILE['ratelimit-policy'],
  };

  test.each(Object.keys(HOSTILE))('%s is never taken from the backend', (name) => {
    expect(a.status).toBe(200);
    const v = a.headers[name];
    const own = GATEWAY_OWN[name];
    if (own) expect([v, own(v)]).toEqual([v, true]);
    else expect(v).toBeUndefined();
  });

  test("an echo of the operator's upstream credential header never reaches the client", () => {
    expect(backend.lastHeaders()['x-upstream-key']).toBe('operator-secret-1');
    expect(a.headers['x-upstream-key']).toBeUndefined();
    expect(JSON.stringify(a.headers)).not.toContain('operator-secret-1');
  });

  test.each(Object.keys(ALLOWED).filter((n) => n !== 'x-total-count'))('%s passes as it is', (name) => {
    expect(a.headers[name]).toBe(ALLOWED[name]);
    expect(plain.headers[name]).toBe(ALLOWED[name]);
  });

  test('a header the route lists passes on that route only', () => {
    expect(a.headers['x-total-count']).toBe('2');
    expect(plain.headers['x-total-count']).toBeUndefined();
  });
});
