/**
 * Two-factor authentication (TOTP) in both rule sets, over the real embedded store: enrolment with the secret read
 * from the page and codes computed from it with `otpauth` (as an authenticator app would), the sign-in's second step
 * after A's password or B's mailed link, replay protection, recovery codes (once each), the code asked again for
 * sensitive changes (pages and JSON API), rate limits, and that no secret reaches the logs or the store in clear.
 */
import { Secret, TOTP } from 'otpauth';
import { RECOVERY_CODE_COUNT } from '../../../dashboard/totp';
import { BOTH, Client, PASSWORD, signedUp, useDashboards, type Harness } from './fixture';

jest.setTimeout(60_000);

const dash = useDashboards();

/** The code an authenticator app shows for `secret` at the harness's time. */
function codeAt(h: Harness, secret: string, offsetSteps = 0): string {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  return totp.generate({ timestamp: h.clock.now() + offsetSteps * 30_000 });
}

/** Move to the next 30-second step (a new code). */
const nextStep = (h: Harness) => h.clock.advance(30_000);

/** Turn the second factor on for a signed-in client: the secret from the page and the recovery codes shown. */
async function enrol(h: Harness, c: Client): Promise<{ secret: string; codes: string[] }> {
  const setup = await c.form('/settings/security/setup', {});
  expect(setup.status).toBe(200);
  expect(setup.text).toMatch(/<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"/);
  const secret = (/id="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)?.[1] ?? '').replace(/ /g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const done = await c.form('/settings/security/enable', { otp: codeAt(h, secret) });
  expect(done.status).toBe(200);
  const codes = [...done.text.matchAll(/<li><code>([0-9a-z-]{19})<\/code><\/li>/g)].map(
    (m) => m[1] as string,
  );
  expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
  nextStep(h);
  return { secret, codes };
}

/** Pass the first factor (A: password; B: a fresh mailed link) on a new client; the answer of the last step. */
async function firstFactor(h: Harness, email: string, c = new Client(h.app)) {
  await c.get('/signin');
  if (h.rules.name === 'A') return { c, r: await c.form('/signin', { email, password: PASSWORD }) };
  await c.form('/signin', { email });
  await new Promise((resolve) => setImmediate(resolve));
  const token = new URLSearchParams(h.mail.last(email).split('?')[1]).get('token') ?? '';
  return { c, r: await c.form('/signin/link', { token }) };
}

const hasSession = (c: Client) => [...c.cookies.keys()].some((k) => k.endsWith('gg_session'));

describe.each(BOTH)('rule set %s: two-factor authentication', (rs) => {
  let h: Harness;
  const email = 'ada@example.com';
  beforeEach(async () => {
    h = await dash(rs);
  });

  test('enrolment: a wrong code leaves it off; the right one turns it on, shows the recovery codes once, keeps no secret in clear', async () => {
    const c = await signedUp(h, email);
    const page = await c.get('/settings/security');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Two-factor authentication is <strong>off</strong>');
    const setup = await c.form('/settings/security/setup', {});
    const secret = (/id="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)?.[1] ?? '').replace(/ /g, '');
    const wrong = await c.form('/settings/security/enable', { otp: codeAt(h, secret, 5) });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That code is not right');
    const account = await h.store.findAccountByEmail(email);
    expect((await h.store.totpState(account!.id))?.enabledAt).toBeNull();
    const on = await c.form('/settings/security/enable', { otp: codeAt(h, secret) });
    expect(on.status).toBe(200);
    expect(on.text).toContain('Save these recovery codes now');
    const state = await h.store.totpState(account!.id);
    expect(state?.enabledAt).toBe(h.clock.now());
    expect(state?.secret).not.toContain(secret);
    expect(await h.store.recoveryCodesLeft(account!.id)).toBe(RECOVERY_CODE_COUNT);
    const codes = [...on.text.matchAll(/<li><code>([0-9a-z-]{19})<\/code><\/li>/g)].map(
      (m) => m[1] as string,
    );
    const after = await c.get('/settings/security');
    expect(after.text).toContain('Two-factor authentication is <strong>on</strong>');
    expect(after.text).toContain(`<strong>${RECOVERY_CODE_COUNT}</strong> unused recovery codes`);
    for (const code of codes) expect(after.text).not.toContain(code);
    for (const s of [secret, ...codes]) expect(h.logs.text).not.toContain(s);
    expect(h.logs.text).toContain('"action":"two_factor.enabled"');
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.mail.notices.map((n) => n.subject)).toContain('Two-factor authentication is on');
  });

  test('sign-in: the first factor alone gives no session; a code does, once; a recovery code works once', async () => {
    const c0 = await signedUp(h, email);
    const { secret, codes } = await enrol(h, c0);

    const { c, r } = await firstFactor(h, email);
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe('/signin/2fa');
    expect(hasSession(c)).toBe(false);
    expect((await c.get('/keys')).headers['location']).toBe('/signin');
    const prompt = await c.get('/signin/2fa');
    expect(prompt.status).toBe(200);
    expect(prompt.text).toContain(email);
    const wrong = await c.form('/signin/2fa', { otp: codeAt(h, secret, 4) });
    expect(wrong.status).toBe(401);
    expect(hasSession(c)).toBe(false);
    const code = codeAt(h, secret);
    const ok = await c.form('/signin/2fa', { otp: code });
    expect(ok.status).toBe(303);
    expect(ok.headers['location']).toBe('/');
    expect(hasSession(c)).toBe(true);
    expect((await c.get('/keys')).status).toBe(200);

    // The same code again (same step, another sign-in): refused, it was used.
    const second = await firstFactor(h, email);
    const replay = await second.c.form('/signin/2fa', { otp: code });
    expect(replay.status).toBe(401);
    expect(hasSession(second.c)).toBe(false);
    // A recovery code (typed in capitals with spaces) works once.
    const typed = (codes[0] as string).toUpperCase().replace(/-/g, ' ');
    const rec = await second.c.form('/signin/2fa', { otp: typed });
    expect(rec.status).toBe(303);
    expect(hasSession(second.c)).toBe(true);
    const account = await h.store.findAccountByEmail(email);
    expect(await h.store.recoveryCodesLeft(account!.id)).toBe(RECOVERY_CODE_COUNT - 1);
    const third = await firstFactor(h, email);
    const again = await third.c.form('/signin/2fa', { otp: codes[0] as string });
    expect(again.status).toBe(401);
    expect(h.logs.text).toContain('"secondFactor":"recovery"');
  });

  test('the half signed-in state is single use and expires after 5 minutes', async () => {
    const { secret } = await enrol(h, await signedUp(h, email));
    const { c } = await firstFactor(h, email);
    const saved = new Map(c.cookies);
    expect((await c.form('/signin/2fa', { otp: codeAt(h, secret) })).status).toBe(303);
    nextStep(h);
    // The same half signed-in cookie with a new, valid code: used already.
    const copy = new Client(h.app);
    for (const [k, v] of saved) if (!k.endsWith('gg_session')) copy.cookies.set(k, v);
    await copy.get('/signin'); // a pre-session CSRF token for the form
    const reused = await copy.form('/signin/2fa', { otp: codeAt(h, secret) });
    expect(reused.status).toBe(400);
    expect(reused.text).toContain('expired or was already used');
    expect(hasSession(copy)).toBe(false);

    const late = await firstFactor(h, email);
    h.clock.advance(5 * 60_000 + 1000);
    const expired = await late.c.form('/signin/2fa', { otp: codeAt(h, secret) });
    expect(expired.status).toBe(400);
    expect(hasSession(late.c)).toBe(false);
  });

  test('wrong codes are rate-limited like sign-in (429 with Retry-After), and then even a right code waits', async () => {
    const { secret } = await enrol(h, await signedUp(h, email));
    const { c } = await firstFactor(h, email);
    let status = 0;
    let tries = 0;
    while (status !== 429 && tries < 40) {
      tries++;
      const r = await c.form('/signin/2fa', { otp: String(100000 + tries) });
      status = r.status;
      if (r.status === 429) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(status).toBe(429);
    expect(tries).toBeLessThanOrEqual(30);
    const right = await c.form('/signin/2fa', { otp: codeAt(h, secret) });
    expect(right.status).toBe(429);
    expect(hasSession(c)).toBe(false);
  });

  test('key creation asks for the code again (page and API); one code counts for 5 minutes of this session', async () => {
    const c = await signedUp(h, email);
    const { secret } = await enrol(h, c);
    h.clock.advance(6 * 60_000); // the enrolment's own confirmation has run out
    const account = (await h.store.findAccountByEmail(email))!;
    const label = 'prod';

    const asked = await c.form('/keys', { label });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Confirm it is you');
    expect(asked.text).toContain('<form method="post" action="/keys"');
    expect(asked.text).toContain('name="label" value="prod"');
    expect(await h.store.listKeys(account.id)).toHaveLength(0);
    const wrong = await c.form('/keys', { label, otp: codeAt(h, secret, 3) });
    expect(wrong.status).toBe(401);
    expect(await h.store.listKeys(account.id)).toHaveLength(0);
    const created = await c.form('/keys', { label, otp: codeAt(h, secret) });
    expect(created.status).toBe(201);
    expect(created.text).toContain('Your new key');
    expect(await h.store.listKeys(account.id)).toHaveLength(1);
    // Within 5 minutes, no code again; the API too.
    expect((await c.api('post', '/api/keys', { label: 'api-1' })).status).toBe(201);
    h.clock.advance(5 * 60_000 + 1000);
    const api = await c.api('post', '/api/keys', { label: 'api-2' });
    expect(api.status).toBe(403);
    expect(api.body).toMatchObject({ code: 'second_factor_required', field: 'otp' });
    expect(await h.store.listKeys(account.id)).toHaveLength(2);
    const apiOk = await c.api('post', '/api/keys', { label: 'api-2', otp: codeAt(h, secret) });
    expect(apiOk.status).toBe(201);
    // Another session (a new sign-in) does not inherit the confirmation.
    nextStep(h);
    const other = await firstFactor(h, email);
    expect((await other.c.form('/signin/2fa', { otp: codeAt(h, secret) })).status).toBe(303);
    await other.c.get('/keys');
    expect((await other.c.form('/keys', { label: 'x' })).text).toContain('Confirm it is you');
  });

  test('deletion and the e-mail change ask for the code again; turning it off too, and then sign-in needs no code', async () => {
    const c = await signedUp(h, email);
    const { secret } = await enrol(h, c);
    h.clock.advance(6 * 60_000);
    const emailForm = { email: 'new@example.com', ...(rs === 'A' ? { email_current: PASSWORD } : {}) };
    const asked = await c.form('/settings/email', emailForm);
    expect(asked.text).toContain('Confirm it is you');
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.mail.accountMails.filter((m) => m.to === 'new@example.com')).toHaveLength(0);
    const sent = await c.form('/settings/email', { ...emailForm, otp: codeAt(h, secret) });
    expect(sent.status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.mail.accountMails.filter((m) => m.to === 'new@example.com')).toHaveLength(1);

    h.clock.advance(6 * 60_000);
    const del = await c.form('/settings/delete', {
      confirm: 'yes',
      ...(rs === 'A' ? { current: PASSWORD } : {}),
    });
    expect(del.text).toContain('Confirm it is you');
    expect((await h.store.findAccountByEmail(email))?.status).toBe('active');

    const off = await c.form('/settings/security/disable', { otp: codeAt(h, secret) });
    expect(off.status).toBe(303);
    const account = (await h.store.findAccountByEmail(email))!;
    expect(await h.store.totpState(account.id)).toBeNull();
    const { c: fresh, r } = await firstFactor(h, email);
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe('/');
    expect(hasSession(fresh)).toBe(true);
  });
});

describe('rule set A: password change and deletion with the second factor on', () => {
  let h: Harness;
  const email = 'ada@example.com';
  beforeEach(async () => {
    h = await dash('A');
  });

  test('the password change carries its fields through the code page; deletion with a recovery code deletes', async () => {
    const c = await signedUp(h, email);
    const { secret, codes } = await enrol(h, c);
    h.clock.advance(6 * 60_000);
    const fields = { current: PASSWORD, password: 'a new long password 1' };
    const asked = await c.form('/settings/password', fields);
    expect(asked.text).toContain('Confirm it is you');
    const changed = await c.form('/settings/password', { ...fields, otp: codeAt(h, secret) });
    expect(changed.status).toBe(303);
    expect(changed.headers['location']).toBe('/settings?done=password');
    await c.get('/settings');
    const id = (await h.store.findAccountByEmail(email))!.id;
    h.clock.advance(6 * 60_000);
    const gone = await c.form('/settings/delete', {
      confirm: 'yes',
      current: 'a new long password 1',
      otp: codes[3] as string,
    });
    expect(gone.status).toBe(200);
    const account = await h.store.getAccount(id);
    expect(account?.status).toBe('deleted');
    expect(await h.store.totpState(account!.id)).toBeNull();
  });

  test('a password reset by the mailed link still asks for the code before a session', async () => {
    const c = await signedUp(h, email);
    const { secret } = await enrol(h, c);
    const anon = new Client(h.app);
    await anon.get('/password/forgot');
    await anon.form('/password/forgot', { email });
    await new Promise((resolve) => setImmediate(resolve));
    const link = h.mail.accountMails.filter((m) => m.subject === 'Reset your password').at(-1)!.link;
    const token = new URL(link).searchParams.get('token') ?? '';
    await anon.get(`/password/reset?token=${encodeURIComponent(token)}`);
    const r = await anon.form('/password/reset', { token, password: 'another long password' });
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe('/signin/2fa');
    expect(hasSession(anon)).toBe(false);
    await anon.get('/signin/2fa');
    expect((await anon.form('/signin/2fa', { otp: codeAt(h, secret) })).status).toBe(303);
    expect(hasSession(anon)).toBe(true);
  });
});
