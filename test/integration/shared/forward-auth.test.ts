/**
 * Forward auth on the shared store (D38): two gateway instances on one PostgreSQL + Redis. A release within the
 * window gives the unit back to the shared counter; after the window the decision stands; the counter is one across
 * the instances' forward-auth listeners.
 */
import http from 'node:http';
import { describeShared, startPair, useSharedEnv, type Pair } from './fixture';

/** Ask an instance's /v1/admit as nginx would, for the client `client` with `key`. */
function admit(url: string, key: string, client: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/v1/admit', url), {
      headers: {
        'x-original-uri': '/v1/reverse?lat=48.8584&lon=2.2945',
        'x-original-method': 'GET',
        'x-forwarded-host': 'localhost',
        'x-forwarded-for': client,
        'x-api-key': key,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end();
  });
}

function release(url: string, id: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/v1/release', url), {
      method: 'POST',
      headers: { 'x-geogate-admission': id },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end();
  });
}

describeShared('forward auth on the shared store', () => {
  const { env } = useSharedEnv('fwdauth');
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair(env, 'B', 'http://127.0.0.1:9', {
      limits: { freePerDay: 2 },
      forwardAuth: { listen: { host: '127.0.0.1', port: 0 }, releaseWindowMs: 1000 },
    });
  });
  afterAll(() => pair?.close());
  const fa = (i: 0 | 1): string => pair.instances[i].forwardAuthUrl as string;

  test('a release within the window restores the shared counter; the allowance holds across instances', async () => {
    const account = await pair.instances[0].store.createAccount(
      { email: 'fa-shared@example.org' },
      pair.clock.now(),
    );
    const { key } = await pair.key(account.id);
    const first = await admit(fa(0), key, '198.51.100.20');
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-quota-used']).toBe('1');
    const released = await release(fa(0), first.headers['x-geogate-admission'] as string);
    expect(released.headers['x-geogate-released']).toBe('true');
    // The unit is back: two more admissions, one on each instance, then the account's allowance is used up.
    const a = await admit(fa(1), key, '198.51.100.20');
    const b = await admit(fa(0), key, '198.51.100.20');
    const c = await admit(fa(1), key, '198.51.100.20');
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([200, 200, 429]);
    expect([a.headers['x-quota-used'], b.headers['x-quota-used']]).toEqual(['1', '2']);
  });

  test('after the window the decision stands: a release reports false and changes nothing', async () => {
    const account = await pair.instances[0].store.createAccount(
      { email: 'fa-late@example.org' },
      pair.clock.now(),
    );
    const { key } = await pair.key(account.id);
    const first = await admit(fa(1), key, '198.51.100.21');
    pair.clock.advance(1_500);
    // The window's sweep runs every 250 ms and keeps what has passed.
    await new Promise((r) => setTimeout(r, 400));
    const late = await release(fa(1), first.headers['x-geogate-admission'] as string);
    expect(late.headers['x-geogate-released']).toBe('false');
    const next = await admit(fa(0), key, '198.51.100.21');
    expect(next.headers['x-quota-used']).toBe('2');
  });
});
