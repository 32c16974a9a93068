/**
 * CSRF once signed in: only the session's token authorises a change. The pre-session token is bound to a cookie
 * value anyone can choose, so a token minted for a planted cookie must not work, even without an Origin header.
 * Under an https publicUrl the cookies carry the `__Host-` prefix.
 */
import { Client, ORIGIN, PASSWORD, signedUp, useDashboards } from './fixture';

jest.setTimeout(30_000);

const dash = useDashboards();

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  test('a signed-in change with a pre-session token minted for a planted cookie is refused 403, without Origin too', async () => {
    const h = await dash(set);
    const victim = await signedUp(h, 'ada@example.com');
    // The attacker mints a pre-session token for a cookie value of their choosing.
    const seed = 'chosen-by-the-attacker-0123';
    const attacker = new Client(h.app, null);
    attacker.cookies.set('gg_pre', seed);
    await attacker.get('/signin');
    const minted = attacker.csrf;
    expect(minted).not.toBe('');
    expect(minted).not.toBe(victim.csrf);
    // The victim's browser carries the planted cookie; the forged request carries no Origin.
    victim.cookies.set('gg_pre', seed);
    victim.origin = null;
    const before = (await h.store.listKeys((await h.store.findAccountByEmail('ada@example.com'))!.id)).length;
    const form = await victim.form('/keys', { label: 'planted', _csrf: minted });
    expect(form.status).toBe(403);
    const api = await victim.api('post', '/api/keys', { label: 'planted' }, { csrf: minted });
    expect(api.status).toBe(403);
    expect(api.body.code).toBe('csrf_failed');
    const account = await h.store.findAccountByEmail('ada@example.com');
    expect((await h.store.listKeys(account!.id)).length).toBe(before);
    // The session's own token still works, with or without Origin.
    expect((await victim.api('post', '/api/keys', { label: 'mine' })).status).toBe(201);
  });
});

test('pages of a signed-in customer carry the session token, so link confirmations still work while signed in', async () => {
  const h = await dash('A');
  const c = await signedUp(h, 'ada@example.com', { verify: false });
  const mail = h.mail.accountMails.find((m) => m.subject === 'Confirm your e-mail address');
  const page = await c.get(new URL(mail!.link).pathname + new URL(mail!.link).search);
  expect(page.status).toBe(200);
  const token = new URL(mail!.link).searchParams.get('token') ?? '';
  const ok = await c.form('/verify/email', { token });
  expect(ok.status).toBe(303);
});

describe('cookie names under an https publicUrl', () => {
  test('are __Host- prefixed, and the plain names are not read', async () => {
    const https = 'https://dash.test';
    const h = await dash('A', { config: { publicUrl: https } });
    const c = new Client(h.app, https);
    const page = await c.get('/signup');
    const pre = (page.headers['set-cookie'] as unknown as string[]).join('\n');
    expect(pre).toMatch(/^__Host-gg_pre=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax/m);
    expect(pre).not.toMatch(/Domain=/i);
    const r = await c.form('/signup', { email: 'ada@example.com', name: 'Ada', password: PASSWORD });
    expect(r.status).toBe(303);
    const session = (r.headers['set-cookie'] as unknown as string[]).find((s) =>
      s.startsWith('__Host-gg_session='),
    );
    expect(session).toMatch(/Path=\/; HttpOnly; Secure; SameSite=Lax/);
    expect((await c.get('/settings')).status).toBe(200);
    // The same token under the plain name (as a sibling subdomain could set it) is no session.
    const plain = new Client(h.app, https);
    plain.cookies.set('gg_session', c.cookies.get('__Host-gg_session') ?? '');
    expect((await plain.get('/settings')).headers['location']).toBe('/signin');
    // Over http (ORIGIN) the names stay plain: a local demo outside a secure context keeps working.
    expect(ORIGIN.startsWith('http:')).toBe(true);
  });
});
