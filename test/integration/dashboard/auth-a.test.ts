/** Rule set A: sign-up with e-mail, name and password; sign-in with password; sessions; rate limits. */
import { verifyPassword } from '../../../gateway/admin/password';
import { SIGNIN_LIMITS } from '../../../dashboard/context';
import { Client, PASSWORD, signedUp, useDashboards, type Harness } from './fixture';

jest.setTimeout(30_000);

let h: Harness;
const dash = useDashboards();
beforeEach(async () => {
  h = await dash('A');
});

describe('rule set A sign-up', () => {
  test('creates the account with a scrypt password hash and signs in with a Secure HttpOnly SameSite=Lax cookie', async () => {
    const c = new Client(h.app);
    await c.get('/signup');
    const r = await c.form('/signup', { email: 'ada@example.com', name: 'Ada', password: PASSWORD });
    expect(r.status).toBe(303);
    const cookie = (r.headers['set-cookie'] as unknown as string[]).find((s) => s.startsWith('gg_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const account = await h.store.findAccountByEmail('ada@example.com');
    expect(account?.name).toBe('Ada');
    expect(account?.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(PASSWORD, account?.passwordHash ?? '')).toBe(true);
    const home = await c.get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('ada@example.com');
  });

  test.each([
    [{ email: 'not-an-email', name: 'Ada', password: PASSWORD }, 'email'],
    [{ email: 'ada@example.com', name: '', password: PASSWORD }, 'name'],
    [{ email: 'ada@example.com', name: 'Ada', password: 'short' }, 'password'],
  ])('refuses %j with the error next to the %s field and keeps nothing', async (fields, name) => {
    const c = new Client(h.app);
    await c.get('/signup');
    const r = await c.form('/signup', fields);
    expect(r.status).toBe(400);
    expect(r.text).toContain(`id="f-${name}-error"`);
    expect(await h.store.findAccountByEmail('ada@example.com')).toBeNull();
  });

  test('a registered e-mail address (any case) gets a neutral answer and its owner an e-mail; nothing changes', async () => {
    await signedUp(h, 'ada@example.com');
    const c = new Client(h.app);
    await c.get('/signup');
    const r = await c.form('/signup', { email: 'ADA@example.com', name: 'Eve', password: PASSWORD });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('already registered');
    expect(r.text).toContain('Check your mailbox');
    expect(r.headers['set-cookie'] ?? []).not.toContainEqual(expect.stringMatching(/^gg_session=/));
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.mail.notices).toEqual([
      expect.objectContaining({ to: 'ada@example.com', subject: 'You already have an account' }),
    ]);
    expect((await h.store.findAccountByEmail('ada@example.com'))?.name).toBe('Ada Lovelace');
  });
});

describe('rule set A sign-in', () => {
  beforeEach(async () => {
    await signedUp(h, 'ada@example.com');
  });

  test('signs in with the right password and refuses a wrong one without saying which part was wrong', async () => {
    const c = new Client(h.app);
    await c.get('/signin');
    const bad = await c.form('/signin', { email: 'ada@example.com', password: 'wrong password!!' });
    expect(bad.status).toBe(401);
    expect(bad.text).toContain('E-mail address or password is wrong');
    const unknown = await c.form('/signin', { email: 'nobody@example.com', password: PASSWORD });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('E-mail address or password is wrong');
    const ok = await c.form('/signin', { email: 'ada@example.com', password: PASSWORD });
    expect(ok.status).toBe(303);
    expect((await c.get('/keys')).status).toBe(200);
  });

  test('a session ends after 12 hours on the injected clock, and at sign-out', async () => {
    const c = new Client(h.app);
    await c.get('/signin');
    await c.form('/signin', { email: 'ada@example.com', password: PASSWORD });
    expect((await c.get('/keys')).status).toBe(200);
    h.clock.advance(12 * 3600_000 + 1000);
    const late = await c.get('/keys');
    expect(late.status).toBe(303);
    expect(late.headers.location).toBe('/signin');

    await c.get('/signin');
    await c.form('/signin', { email: 'ada@example.com', password: PASSWORD });
    await c.get('/');
    const out = await c.form('/signout', {});
    expect(out.status).toBe(303);
    expect((await c.get('/keys')).status).toBe(303);
  });

  test(`limits attempts per e-mail (${SIGNIN_LIMITS.perEmail} per 15 min): 429 with Retry-After, then free again`, async () => {
    const c = new Client(h.app);
    await c.get('/signin');
    for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) {
      expect(
        (await c.form('/signin', { email: 'ada@example.com', password: 'wrong password!!' })).status,
      ).toBe(401);
    }
    const limited = await c.form('/signin', { email: 'ada@example.com', password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many sign-in attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another e-mail from the same address is not limited yet (per-address limit is higher).
    expect((await c.form('/signin', { email: 'other@example.com', password: PASSWORD })).status).toBe(401);
    h.clock.advance(SIGNIN_LIMITS.windowMs);
    expect((await c.form('/signin', { email: 'ada@example.com', password: PASSWORD })).status).toBe(303);
  });

  test(`limits attempts per client address (${SIGNIN_LIMITS.perAddress} per 15 min) across e-mails`, async () => {
    const c = new Client(h.app);
    await c.get('/signin');
    // The sign-up in beforeEach was the first attempt of this address (sign-ups count too).
    for (let i = 1; i < SIGNIN_LIMITS.perAddress; i++) {
      const r = await c.form('/signin', { email: `user${i}@example.com`, password: 'x' });
      expect(r.status).toBe(401);
    }
    const limited = await c.form('/signin', { email: 'ada@example.com', password: PASSWORD });
    expect(limited.status).toBe(429);
  });
});
