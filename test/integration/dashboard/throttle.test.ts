/**
 * Issue 13 item 5: sign-in throttling is shared through the store (every dashboard instance sees it), counted per
 * (e-mail, client address) and per address, never per e-mail alone: an attacker's failures do not lock the owner
 * out of another address, and an unknown e-mail is answered like a known one.
 */
import { Agent } from 'node:http';
import { createDashboardApp } from '../../../dashboard/app';
import { SIGNIN_LIMITS } from '../../../dashboard/throttle';
import { Client, harness, PASSWORD, signedUp, type Harness } from './harness';

jest.setTimeout(60_000);

let h: Harness;
const agents: Agent[] = [];
beforeEach(async () => {
  h = await harness('A');
  await signedUp(h, 'owner@example.com');
});
afterEach(async () => {
  for (const a of agents.splice(0)) a.destroy();
  await h.close();
});

/** A client of `app` connecting from a loopback address of its own (Linux routes all of 127/8 to lo). */
function from(address: string, app = h.app): Client {
  const agent = new Agent({ localAddress: address });
  agents.push(agent);
  return new Client(app, undefined, agent);
}

const wrong = { email: 'owner@example.com', password: 'not the password!' };
const right = { email: 'owner@example.com', password: PASSWORD };

test('two dashboard apps on one store see the same throttle', async () => {
  const other = createDashboardApp(h.deps);
  const a = from('127.0.0.2');
  const b = from('127.0.0.2', other);
  await a.get('/signin');
  await b.get('/signin');
  for (let i = 0; i < SIGNIN_LIMITS.perEmail / 2; i++) {
    expect((await a.form('/signin', wrong)).status).toBe(401);
    expect((await b.form('/signin', wrong)).status).toBe(401);
  }
  const limited = await b.form('/signin', right);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  expect((await a.form('/signin', right)).status).toBe(429);
});

test('the owner from another address still signs in after 10 failures from an attacker address', async () => {
  const attacker = from('127.0.0.3');
  await attacker.get('/signin');
  for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) {
    expect((await attacker.form('/signin', wrong)).status).toBe(401);
  }
  expect((await attacker.form('/signin', right)).status).toBe(429);
  const owner = from('127.0.0.4');
  await owner.get('/signin');
  expect((await owner.form('/signin', right)).status).toBe(303);
});

test('failures answer the same whether the account exists or not, and are throttled the same', async () => {
  const known = from('127.0.0.5');
  const unknown = from('127.0.0.6');
  await known.get('/signin');
  await unknown.get('/signin');
  const ghost = { email: 'nobody@example.com', password: 'not the password!' };
  const strip = (text: string, email: string) =>
    text
      .replace(email, 'X')
      .replace(/name="_csrf" value="[^"]+"/, '')
      .replace(/content="[^"]+"/g, '');
  for (let i = 0; i < SIGNIN_LIMITS.perEmail + 1; i++) {
    const k = await known.form('/signin', wrong);
    const u = await unknown.form('/signin', ghost);
    expect(u.status).toBe(k.status);
    expect(strip(u.text, ghost.email)).toBe(strip(k.text, wrong.email));
  }
  expect((await unknown.form('/signin', ghost)).status).toBe(429);
});

test('the window is the injected clock: after it the owner signs in from the attacker address too', async () => {
  const attacker = from('127.0.0.7');
  await attacker.get('/signin');
  for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) await attacker.form('/signin', wrong);
  expect((await attacker.form('/signin', right)).status).toBe(429);
  h.clock.advance(SIGNIN_LIMITS.windowMs);
  expect((await attacker.form('/signin', right)).status).toBe(303);
});
