/**
 * Account lifecycle (issue 15 item 1): e-mail verification at sign-up (rule set A: until verified an account can sign
 * in and look around but not create keys or top up; B's accounts are proven by their sign-up link) and account
 * deletion (A: the password; B: a fresh e-mailed link), with the data kept for accounting. Also the security
 * headers and cookies now made by helmet and `cookie` (issue 15 item 8).
 */
import { PASSWORD, Client, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();
const tokenOf = (link: string): string => new URL(link).searchParams.get('token') ?? '';
const pathOf = (link: string): string => {
  const u = new URL(link);
  return u.pathname + u.search;
};
const verificationMails = (to: string) =>
  h.mail.accountMails.filter((m) => m.to === to && m.subject === 'Confirm your e-mail address');

describe('e-mail verification (rule set A)', () => {
  beforeEach(async () => {
    h = await dash('A');
  });

  test('a new account is unverified: it can look around, but creating a key or topping up is refused until the mailed link is opened', async () => {
    const c = await signedUp(h, 'uma@example.com', { verify: false });
    const id = (await h.store.findAccountByEmail('uma@example.com'))?.id ?? '';
    expect((await h.store.getAccount(id))?.emailVerifiedAt).toBeNull();
    const overview = await c.get('/');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('Confirm your e-mail address: we sent a link to');
    for (const p of ['/keys', '/credit', '/usage', '/settings']) expect((await c.get(p)).status).toBe(200);

    const key = await c.form('/keys', { label: 'web' });
    expect(key.status).toBe(403);
    expect(key.text).toContain('Confirm your e-mail address first');
    const api = await c.api('post', '/api/keys', { label: 'web' });
    expect(api.status).toBe(403);
    expect(api.body).toMatchObject({ code: 'email_unverified' });
    expect((await c.api('get', '/api/session')).body.account).toMatchObject({ emailVerified: false });
    expect((await c.form('/credit/top-up', { amount: '10' })).status).toBe(403);
    expect((await c.form('/packages', {})).status).toBe(403);
    expect(await h.store.listKeys(id)).toEqual([]);
    expect(await h.store.ledger(id, 10)).toEqual([]);

    const [mail] = verificationMails('uma@example.com');
    expect(mail?.text).toContain('It works once and expires in 24 hours');
    const visitor = new Client(h.app);
    const landing = await visitor.get(pathOf(mail?.link ?? ''));
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('Confirm that <strong>uma@example.com</strong> is your address');
    expect((await h.store.getAccount(id))?.emailVerifiedAt).toBeNull(); // opening the link alone does not use it
    const done = await visitor.form('/verify/email', { token: tokenOf(mail?.link ?? '') });
    expect(done.status).toBe(200);
    expect(done.text).toContain('is confirmed');
    expect((await h.store.getAccount(id))?.emailVerifiedAt).toBe(h.clock.now());
    // Single use.
    expect((await visitor.form('/verify/email', { token: tokenOf(mail?.link ?? '') })).status).toBe(400);

    expect((await c.get('/')).text).not.toContain('Confirm your e-mail address: we sent');
    await c.get('/keys');
    expect((await c.form('/keys', { label: 'web' })).status).toBe(201);
    expect(h.logs.text).toContain('"action":"email.verified"');
    expect(h.logs.text).not.toContain(tokenOf(mail?.link ?? ''));
  });

  test('the link can be sent again, 3 times an hour; a signed-in owner lands on settings; a link for an old address is void', async () => {
    const c = await signedUp(h, 'vic@example.com', { verify: false });
    await c.get('/settings');
    for (let i = 0; i < 3; i += 1) {
      const r = await c.form('/verify/resend', {});
      expect(r.status).toBe(200);
      expect(r.text).toContain('A new link to confirm <strong>vic@example.com</strong>');
    }
    const over = await c.form('/verify/resend', {});
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(verificationMails('vic@example.com')).toHaveLength(4); // sign-up + 3

    // The address changes before the link is used: the old link is void (credential stamp), the change proves the new one.
    const oldLink = verificationMails('vic@example.com').at(-1)?.link ?? '';
    await c.form('/settings/email', { email: 'vic.new@example.com', email_current: PASSWORD });
    const change = h.mail.accountMails.at(-1);
    await c.form('/settings/email/confirm', { token: tokenOf(change?.link ?? '') });
    const acc = await h.store.findAccountByEmail('vic.new@example.com');
    expect(acc?.emailVerifiedAt).toBe(h.clock.now());
    await c.get('/settings');
    expect((await c.form('/verify/email', { token: tokenOf(oldLink) })).status).toBe(400);
  });

  test('a password reset by the mailed link also proves the address', async () => {
    await signedUp(h, 'rae@example.com', { verify: false });
    const visitor = new Client(h.app);
    await visitor.get('/password/forgot');
    await visitor.form('/password/forgot', { email: 'rae@example.com' });
    const link = h.mail.accountMails.filter((m) => m.subject === 'Reset your password').at(-1)?.link ?? '';
    await visitor.get(pathOf(link));
    expect(
      (await visitor.form('/password/reset', { token: tokenOf(link), password: 'a brand new passphrase' }))
        .status,
    ).toBe(303);
    expect((await h.store.findAccountByEmail('rae@example.com'))?.emailVerifiedAt).toBe(h.clock.now());
  });

  test('a signed-in owner who opens the link is sent to settings with a message', async () => {
    const c = await signedUp(h, 'wes@example.com', { verify: false });
    const link = verificationMails('wes@example.com')[0]?.link ?? '';
    await c.get(pathOf(link));
    const r = await c.form('/verify/email', { token: tokenOf(link) });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/settings?done=verified');
    expect((await c.get('/settings?done=verified')).text).toContain('E-mail address confirmed');
  });

  test('without any way to send mail (no SMTP, not development) a sign-up is verified at creation', async () => {
    h = await dash('A', { mailer: null });
    const c = await signedUp(h, 'nomail@example.com', { verify: false });
    expect((await h.store.findAccountByEmail('nomail@example.com'))?.emailVerifiedAt).toBe(h.clock.now());
    await c.get('/keys');
    expect((await c.form('/keys', { label: 'web' })).status).toBe(201);
  });

  test('in development mode without SMTP the link is logged and the sign-up stays unverified until it is used', async () => {
    h = await dash('A', { mailer: null, config: { development: true } });
    await signedUp(h, 'devmail@example.com', { verify: false });
    expect((await h.store.findAccountByEmail('devmail@example.com'))?.emailVerifiedAt).toBeNull();
    expect(h.logs.text).toContain('/verify/email?token=');
  });

  test('accounts made by the operator count as verified', async () => {
    const a = await h.store.createAccount({ email: 'op@example.com' }, h.clock.now());
    expect(a.emailVerifiedAt).toBe(h.clock.now());
  });
});

describe('e-mail verification (rule set B)', () => {
  test('an account made by its e-mailed sign-up link is verified at once: no banner, keys can be created', async () => {
    h = await dash('B');
    const c = await signedUp(h, 'bea@example.com');
    expect((await h.store.findAccountByEmail('bea@example.com'))?.emailVerifiedAt).toBe(h.clock.now());
    expect((await c.get('/')).text).not.toContain('Confirm your e-mail address');
    await c.get('/keys');
    expect((await c.form('/keys', { label: 'web' })).status).toBe(201);
  });
});

describe('account deletion (rule set A)', () => {
  beforeEach(async () => {
    h = await dash('A');
  });

  test('needs the password and the confirmation box; deletes keys, sessions and personal data, keeps the ledger', async () => {
    const c = await signedUp(h, 'del@example.com');
    const other = await signedUp(h, 'keep@example.com');
    const id = (await h.store.findAccountByEmail('del@example.com'))?.id ?? '';
    await h.store.credit(id, 5000, 'before-delete', h.clock.now());
    await c.get('/keys');
    expect((await c.form('/keys', { label: 'web' })).status).toBe(201);
    const second = new Client(h.app);
    await second.get('/signin');
    await second.form('/signin', { email: 'del@example.com', password: PASSWORD });
    expect((await second.get('/settings')).status).toBe(200);

    const page = await c.get('/settings/delete');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/settings/export.json"');
    expect((await c.form('/settings/delete', { current: PASSWORD })).status).toBe(400); // no box ticked
    const wrong = await c.form('/settings/delete', { confirm: 'yes', current: 'not my password' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('id="f-current-error"');
    expect((await h.store.getAccount(id))?.status).toBe('active');

    const done = await c.form('/settings/delete', { confirm: 'yes', current: PASSWORD });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your account is deleted');
    const gone = await h.store.getAccount(id);
    expect(gone).toMatchObject({
      status: 'deleted',
      email: `deleted-${id}@deleted.invalid`,
      name: null,
      passwordHash: null,
      balance: 0,
    });
    expect((await h.store.listKeys(id)).every((k) => k.status === 'revoked')).toBe(true);
    expect((await h.store.ledger(id, 10)).map((e) => [e.kind, e.amount])).toEqual([
      ['adjustment', -5000],
      ['topup', 5000],
    ]);
    // Every session is over; the other customer is untouched; the address can sign up again.
    expect((await c.get('/settings')).status).toBe(303);
    expect((await second.get('/settings')).status).toBe(303);
    expect((await other.get('/settings')).status).toBe(200);
    const again = await signedUp(h, 'del@example.com');
    expect((await again.get('/settings')).status).toBe(200);
    expect(h.logs.text).toContain('"action":"account.deleted"');
    expect(h.logs.text).toContain('"forfeited":5000');
  });
});

describe('account deletion (rule set B)', () => {
  test('is confirmed by a fresh e-mailed link, which works once', async () => {
    h = await dash('B');
    const c = await signedUp(h, 'bdel@example.com');
    const id = (await h.store.findAccountByEmail('bdel@example.com'))?.id ?? '';
    await c.get('/settings/delete');
    const asked = await c.form('/settings/delete', { confirm: 'yes' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('A link to confirm the deletion is on its way');
    expect((await h.store.getAccount(id))?.status).toBe('active');
    const mail = h.mail.accountMails.at(-1);
    expect(mail).toMatchObject({ to: 'bdel@example.com', subject: 'Confirm the deletion of your account' });
    const visitor = new Client(h.app);
    expect((await visitor.get(pathOf(mail?.link ?? ''))).status).toBe(200);
    const done = await visitor.form('/settings/delete/confirm', { token: tokenOf(mail?.link ?? '') });
    expect(done.status).toBe(200);
    expect((await h.store.getAccount(id))?.status).toBe('deleted');
    expect((await c.get('/settings')).status).toBe(303);
    expect(
      (await visitor.form('/settings/delete/confirm', { token: tokenOf(mail?.link ?? '') })).status,
    ).toBe(400);
  });
});

describe('security headers and cookies (helmet, cookie)', () => {
  test('every answer carries the strict CSP, no framing, nosniff, same-origin referrers and no-store', async () => {
    h = await dash('A');
    const c = new Client(h.app);
    for (const p of ['/signin', '/static/dashboard.css', '/nope']) {
      const r = await c.get(p);
      expect(r.headers['content-security-policy']).toBe(
        "default-src 'self';script-src 'self';script-src-attr 'none';style-src 'self';img-src 'self' data:;object-src 'none';frame-ancestors 'none';form-action 'self';base-uri 'none'",
      );
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('same-origin');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    }
    const r = await new Client(h.app).get('/signin');
    const set = String(r.headers['set-cookie']);
    expect(set).toMatch(/^gg_pre=[A-Za-z0-9_-]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });

  test('the first of two cookies with one name wins, and a malformed cookie header does not break the page', async () => {
    h = await dash('A');
    const c = await signedUp(h, 'cook@example.com');
    const session = c.cookies.get('gg_session') ?? '';
    const r = await new Client(h.app).get('/settings', {
      Cookie: `gg_session=${session}; gg_session=forged; broken; =x; gg_pre=%E0%A4%A`,
    });
    expect(r.status).toBe(200);
    const forgedFirst = await new Client(h.app).get('/settings', {
      Cookie: `gg_session=forged; gg_session=${session}`,
    });
    expect(forgedFirst.status).toBe(303);
  });
});
