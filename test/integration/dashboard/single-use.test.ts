/**
 * Single use through the store: a B sign-in link works once across dashboard instances and restarts, and a
 * signed-out session token is refused everywhere (Store.consumeOnce / isConsumed), on the embedded store (SQLite
 * file) and on the shared store (PostgreSQL, two instances).
 */
import type { Express } from 'express';
import { createDashboardApp } from '../../../dashboard/app';
import type { Store } from '../../../gateway/store/ports';
import { describeShared, sharedEnv, type SharedEnv } from '../shared/harness';
import { Client, PASSWORD, signedUp, type Harness, useDashboards } from './fixture';

jest.setTimeout(60_000);

let h: Harness;
const dash = useDashboards();

/** The token of the newest link mailed to `email`. */
const tokenFor = (email: string): string =>
  new URLSearchParams(h.mail.last(email).split('?')[1] ?? '').get('token') ?? '';

/** Ask `app` for a B sign-in link for an existing account and return its token (unused). */
async function requestLink(app: Express, email: string): Promise<string> {
  const c = new Client(app);
  await c.get('/signin');
  expect((await c.form('/signin', { email })).status).toBe(200);
  return tokenFor(email);
}

/** Redeem a link token on `app` from a fresh browser; the client and the answer. */
async function redeem(app: Express, token: string): Promise<{ c: Client; status: number }> {
  const c = new Client(app);
  await c.get('/signin');
  const r = await c.form('/signin/link', { token });
  return { c, status: r.status };
}

/** A browser on `app` carrying a copy of `from`'s cookies (a stolen or replayed session cookie). */
function replay(app: Express, cookies: Map<string, string>): Client {
  const c = new Client(app);
  for (const [k, v] of cookies) c.cookies.set(k, v);
  return c;
}

/** Whether a client is signed in on its app: API and pages. */
async function expectSignedIn(c: Client, yes: boolean): Promise<void> {
  const api = await c.api('get', '/api/session');
  expect(api.status).toBe(yes ? 200 : 401);
  const page = await c.get('/keys');
  expect(page.status).toBe(yes ? 200 : 303);
  if (!yes) expect(page.headers.location).toBe('/signin');
}

describe('rule set B: a one-time link is single use through the store', () => {
  beforeEach(async () => {
    h = await dash('B');
    await signedUp(h, 'bob@example.com');
  });

  test('a link used on one dashboard instance is refused by a second instance on the same store', async () => {
    const second = createDashboardApp(h.deps);
    const token = await requestLink(h.app, 'bob@example.com');
    const first = await redeem(h.app, token);
    expect(first.status).toBe(303);
    await expectSignedIn(first.c, true);

    const landing = await new Client(second).get(`/signin/link?token=${encodeURIComponent(token)}`);
    expect(landing.status).toBe(400);
    const again = await redeem(second, token);
    expect(again.status).toBe(400);
    expect(again.c.cookies.has('gg_session')).toBe(false);
    await expectSignedIn(again.c, false);

    // The second instance itself redeems a fresh link (once), and the first then refuses that one.
    const fresh = await requestLink(second, 'bob@example.com');
    expect((await redeem(second, fresh)).status).toBe(303);
    expect((await redeem(h.app, fresh)).status).toBe(400);
  });

  test('a used link stays refused after a restart on the same SQLite file; an unused one still works once', async () => {
    const used = await requestLink(h.app, 'bob@example.com');
    const unused = await requestLink(h.app, 'bob@example.com');
    expect((await redeem(h.app, used)).status).toBe(303);
    h.clock.advance(5 * 60_000);
    await h.restart();
    expect((await redeem(h.app, used)).status).toBe(400);
    expect((await redeem(h.app, unused)).status).toBe(303);
    expect((await redeem(h.app, unused)).status).toBe(400);
  });

  test('of 10 concurrent redemptions of one link exactly one signs in', async () => {
    const token = await requestLink(h.app, 'bob@example.com');
    const second = createDashboardApp(h.deps);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => redeem(i % 2 ? second : h.app, token)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([303, ...Array(9).fill(400)]);
  });
});

describe.each([['A'], ['B']] as const)('rule set %s: sign-out ends the session token itself', (set) => {
  beforeEach(async () => {
    h = await dash(set);
  });

  test('replaying the cookie after sign-out is refused (401 / redirect) on every instance and after a restart; signing in again works', async () => {
    const c = await signedUp(h, 'ada@example.com');
    const other = await signedUpOrIn(h, 'ada@example.com');
    const stolen = new Map(c.cookies);
    await expectSignedIn(replay(h.app, stolen), true);

    const out = await c.form('/signout', {});
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/signin');
    expect(c.cookies.has('gg_session')).toBe(false);

    await expectSignedIn(replay(h.app, stolen), false);
    await expectSignedIn(replay(createDashboardApp(h.deps), stolen), false);
    // Signing out ended that session only: the same account's other session goes on.
    await expectSignedIn(other, true);

    await h.restart();
    await expectSignedIn(replay(h.app, stolen), false);
    const again = await signedUpOrIn(h, 'ada@example.com');
    await expectSignedIn(again, true);
    // Still refused until the old token's own 12 hours are over (then it is expired anyway).
    h.clock.advance(12 * 3600_000 - 60_000);
    await expectSignedIn(replay(h.app, stolen), false);
  });
});

/** Sign in an existing account on h.app (A: password; B: a new link) and return the client. */
async function signedUpOrIn(hh: Harness, email: string): Promise<Client> {
  const c = new Client(hh.app);
  await c.get('/signin');
  if (hh.rules.name === 'A') {
    expect((await c.form('/signin', { email, password: PASSWORD })).status).toBe(303);
  } else {
    await c.form('/signin', { email });
    expect((await c.form('/signin/link', { token: tokenFor(email) })).status).toBe(303);
  }
  await c.get('/');
  return c;
}

describeShared('shared store: two gateway instances (PostgreSQL + Redis)', () => {
  let env: SharedEnv;
  let apps: [Express, Express];
  let stores: [Store, Store];
  beforeEach(async () => {
    h = await dash('B');
    env = await sharedEnv(undefined, 'dash-single-use');
    stores = [await env.open(), await env.open()];
    apps = [
      createDashboardApp({ ...h.deps, store: stores[0] }),
      createDashboardApp({ ...h.deps, store: stores[1] }),
    ];
  });
  afterEach(() => env.cleanup());

  test('a link used on instance 1 is refused on instance 2; a signed-out session is refused on both', async () => {
    await stores[0].createAccount({ email: 'carol@example.com' }, h.clock.now());
    const token = await requestLink(apps[0], 'carol@example.com');
    const first = await redeem(apps[0], token);
    expect(first.status).toBe(303);
    expect((await redeem(apps[1], token)).status).toBe(400);
    expect((await redeem(apps[0], token)).status).toBe(400);

    const stolen = new Map(first.c.cookies);
    await expectSignedIn(replay(apps[1], stolen), true);
    await first.c.get('/');
    expect((await first.c.form('/signout', {})).status).toBe(303);
    await expectSignedIn(replay(apps[0], stolen), false);
    await expectSignedIn(replay(apps[1], stolen), false);

    const fresh = await requestLink(apps[1], 'carol@example.com');
    const again = await redeem(apps[1], fresh);
    expect(again.status).toBe(303);
    await expectSignedIn(replay(apps[0], new Map(again.c.cookies)), true);
  });
});
