/** Rule set B: e-mail only sign-up and sign-in by a one-time link (single use, 15 minutes), over real SMTP. */
import { linkIn, startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';
import { LINK_MINUTES } from '../../../dashboard/magic-link';
import { Client, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

/** The token of a captured link. */
const tokenOf = (pathAndQuery: string): string =>
  new URLSearchParams(pathAndQuery.split('?')[1] ?? '').get('token') ?? '';

describe('rule set B sign-up and sign-in by e-mailed link', () => {
  let smtp: SmtpCapture;
  beforeEach(async () => {
    smtp = await startSmtpCapture();
    h = await dash('B', {
      mailer: null,
      config: {
        smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'Dashboard <no-reply@dash.test>' },
      },
    });
  });
  afterEach(() => smtp.close());

  test('sign-up asks only an e-mail; the link arrives over SMTP and creates the account when used', async () => {
    const c = new Client(h.app);
    const page = await c.get('/signup');
    expect(page.text).not.toContain('name="name"');
    expect(page.text).not.toContain('name="password"');
    const r = await c.form('/signup', { email: 'bob@example.com' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Check your mailbox');
    expect(await h.store.findAccountByEmail('bob@example.com')).toBeNull();

    const mail = await smtp.waitFor('bob@example.com');
    expect(mail.from).toBe('no-reply@dash.test');
    const link = new URL(linkIn(mail));
    expect(link.origin).toBe('http://dash.test');
    const landing = await c.get(link.pathname + link.search);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('Continue as');
    const done = await c.form('/signin/link', { token: tokenOf(link.pathname + link.search) });
    expect(done.status).toBe(303);
    const account = await h.store.findAccountByEmail('bob@example.com');
    expect(account).not.toBeNull();
    expect(account?.name).toBeNull();
    expect(account?.passwordHash).toBeNull();
    expect((await c.get('/')).text).toContain('bob@example.com');
  });

  test('a link works once: the second use is refused, even from another browser', async () => {
    const c = new Client(h.app);
    await c.get('/signup');
    await c.form('/signup', { email: 'bob@example.com' });
    const token = tokenOf(new URL(linkIn(await smtp.waitFor('bob@example.com'))).search);
    expect((await c.form('/signin/link', { token })).status).toBe(303);
    const other = new Client(h.app);
    await other.get('/signin');
    const again = await other.form('/signin/link', { token });
    expect(again.status).toBe(400);
    expect(again.text).toContain('no longer works');
    expect((await other.get('/keys')).status).toBe(303);
  });
});

describe('rule set B links (captured mailer)', () => {
  beforeEach(async () => {
    h = await dash('B');
  });

  test(`a link expires after ${LINK_MINUTES} minutes on the injected clock`, async () => {
    await signedUp(h, 'bob@example.com');
    const c = new Client(h.app);
    await c.get('/signin');
    await c.form('/signin', { email: 'bob@example.com' });
    const path = h.mail.last('bob@example.com');
    h.clock.advance(LINK_MINUTES * 60_000 + 1000);
    expect((await c.get(path)).status).toBe(400);
    expect((await c.form('/signin/link', { token: tokenOf(path) })).status).toBe(400);
  });

  test('a tampered link is refused', async () => {
    await signedUp(h, 'bob@example.com');
    const c = new Client(h.app);
    await c.get('/signin');
    await c.form('/signin', { email: 'bob@example.com' });
    const token = tokenOf(h.mail.last('bob@example.com'));
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await c.form('/signin/link', { token: forged })).status).toBe(400);
  });

  test('sign-in for an unknown address answers the same page and sends nothing (no enumeration)', async () => {
    await signedUp(h, 'bob@example.com');
    const before = h.mail.sent.length;
    const c = new Client(h.app);
    await c.get('/signin');
    const known = await c.form('/signin', { email: 'bob@example.com' });
    const unknown = await c.form('/signin', { email: 'nobody@example.com' });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text.replace('nobody@example.com', 'X')).toBe(known.text.replace('bob@example.com', 'X'));
    expect(h.mail.sent.length).toBe(before + 1);
  });

  test('link requests are rate-limited per e-mail (429)', async () => {
    await signedUp(h, 'bob@example.com');
    const c = new Client(h.app);
    await c.get('/signin');
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await c.form('/signin', { email: 'bob@example.com' })).status;
    expect(last).toBe(429);
  });
});

describe('rule set B without SMTP', () => {
  test('in development mode the link is written to the log so a local demo works', async () => {
    h = await dash('B', { mailer: null, config: { development: true } });
    const c = new Client(h.app);
    await c.get('/signup');
    await c.form('/signup', { email: 'demo@example.com' });
    const m = /"link":"(http:\/\/dash\.test\/signin\/link\?token=[^"]+)"/.exec(h.logs.text);
    expect(m).not.toBeNull();
    const url = new URL(m?.[1] ?? '');
    expect((await c.form('/signin/link', { token: url.searchParams.get('token') ?? '' })).status).toBe(303);
  });

  test('by default (no development mode) no link or token reaches the log (issue 13)', async () => {
    h = await dash('B', { mailer: null });
    const c = new Client(h.app);
    await c.get('/signup');
    expect((await c.form('/signup', { email: 'demo@example.com' })).status).toBe(200);
    expect(h.logs.text).toContain('no SMTP configured; a sign-in link was not sent');
    expect(h.logs.text).not.toMatch(/token=|signin\/link|"link"/);
  });
});
