/**
 * Issue 13 item 5 on the shared store: two dashboard instances, each with its own SharedStore on the same PostgreSQL
 * and Redis (two gateway processes in production), see one sign-in throttle.
 */
import pino from 'pino';
import { createDashboardApp } from '../../../dashboard/app';
import { SIGNIN_LIMITS } from '../../../dashboard/throttle';
import { ManualClock } from '../../../gateway/core/clock';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import type { Store } from '../../../gateway/store/ports';
import { describeShared, sharedEnv, type SharedEnv } from '../shared/harness';
import { Client, ORIGIN, PASSWORD, PEPPER, SECRET, START } from './harness';

jest.setTimeout(60_000);

describeShared('sign-in throttle across two instances on the shared store', () => {
  let env: SharedEnv;
  const clock = new ManualClock(START);
  const app = (store: Store) =>
    createDashboardApp({
      store,
      rules: RULE_SET_A,
      pepper: PEPPER,
      clock,
      logger: pino({ level: 'silent' }),
      config: {
        listen: { host: '127.0.0.1', port: 0 },
        publicUrl: ORIGIN,
        sessionSecret: SECRET,
        payments: { provider: 'test' },
      },
    });
  beforeAll(async () => {
    env = await sharedEnv(undefined, 'throttle');
  });
  afterAll(() => env.cleanup());

  test('failures through one instance count on the other; the right password is refused on both', async () => {
    const one = app(await env.open());
    const two = app(await env.open());
    const owner = new Client(one);
    await owner.get('/signup');
    expect(
      (await owner.form('/signup', { email: 'own@example.com', name: 'Own', password: PASSWORD })).status,
    ).toBe(303);
    const a = new Client(one);
    const b = new Client(two);
    await a.get('/signin');
    await b.get('/signin');
    const wrong = { email: 'own@example.com', password: 'not the password!' };
    for (let i = 0; i < SIGNIN_LIMITS.perEmail / 2; i++) {
      expect((await a.form('/signin', wrong)).status).toBe(401);
      expect((await b.form('/signin', wrong)).status).toBe(401);
    }
    const right = { email: 'own@example.com', password: PASSWORD };
    expect((await b.form('/signin', right)).status).toBe(429);
    expect((await a.form('/signin', right)).status).toBe(429);
    clock.advance(SIGNIN_LIMITS.windowMs);
    expect((await a.form('/signin', right)).status).toBe(303);
  });
});
