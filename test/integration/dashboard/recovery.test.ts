/**
 * Account recovery and settings (issue 15 item 1): password reset by a one-time link (rule set A), change of password
 * (re-authenticated) and of e-mail (confirmed from the new mailbox), the data export; links single-use through the
 * store and void after a credential change; a change signs out every other session. One test sends the reset mail
 * through a real SMTP server (smtp-server in the test process) with the real nodemailer transport.
 */
import pino from 'pino';
import { createMailer } from '../../../dashboard/mailer';
import { startSmtpCapture } from '../../helpers/smtp-capture';
import { Client, PASSWORD, signedIn, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

/** The path+query of a link in a mail text. */
function pathOf(link: string): string {
  const u = new URL(link);
  return u.pathname + u.search;
}
const tokenOf = (link: string): string => new URL(link).searchParams.get('token') ?? '';

describe('password reset (rule set A)', () => {
  beforeEach(async () => {
    h = await dash('A');
  });

  test('a reset link from the mailbox sets a new password once, signs in, and ends the other sessions', async () => {
    const other = await signedUp(h, 'ada@example.com');
    expect((await other.get('/settings')).status).toBe(200);

    const visitor = new Client(h.app);
    expect((await visitor.get('/signin')).text).toContain('/password/forgot');
    await visitor.get('/password/forgot');
    const asked = await visitor.form('/password/forgot', { email: 'ADA@example.com' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('If <strong>ADA@example.com</strong> has an account here');
    const mail = h.mail.accountMails.at(-1);
    expect(mail).toMatchObject({ to: 'ada@example.com', subject: 'Reset your password' });
    expect(mail?.text).toContain(mail?.link ?? '-');
    const link = mail?.link ?? '';

    const landing = await visitor.get(pathOf(link));
    expect(landing.status).toBe(200);
    // Too short: refused naming the field, and the link still works.
    const short = await visitor.form('/password/reset', { token: tokenOf(link), password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('id="f-password-error"');
    const done = await visitor.form('/password/reset', {
      token: tokenOf(link),
      password: 'a brand new passphrase',
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/?reset=1');
    expect((await visitor.get('/settings')).status).toBe(200); // signed in by the reset

    // The session from before the reset is over; the link works once; the old password no longer signs in.
    expect((await other.get('/settings')).status).toBe(303);
    const again = await visitor.form('/password/reset', {
      token: tokenOf(link),
      password: 'yet another passphrase',
    });
    expect(again.status).toBe(400);
    await expect(signedIn(h, 'ada@example.com')).rejects.toThrow(/sign-in failed: 401/);
    const c = new Client(h.app);
    await c.get('/signin');
    expect(
      (await c.form('/signin', { email: 'ada@example.com', password: 'a brand new passphrase' })).status,
    ).toBe(303);
    // Nothing secret in the log: no link token, no password.
    expect(h.logs.text).not.toContain(tokenOf(link));
    expect(h.logs.text).not.toContain('a brand new passphrase');
    expect(h.logs.text).toContain('"action":"password.reset"');
  });

  test('an unknown address gets the same answer and no mail', async () => {
    const visitor = new Client(h.app);
    await visitor.get('/password/forgot');
    const r = await visitor.form('/password/forgot', { email: 'nobody@example.com' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('If <strong>nobody@example.com</strong> has an account here');
    expect(h.mail.accountMails).toHaveLength(0);
    const bad = await visitor.form('/password/forgot', { email: 'not an address' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-email-error"');
  });

  test('a reset link stops working once the password was changed another way', async () => {
    const c = await signedUp(h, 'bob@example.com');
    const visitor = new Client(h.app);
    await visitor.get('/password/forgot');
    await visitor.form('/password/forgot', { email: 'bob@example.com' });
    const link = h.mail.accountMails.at(-1)?.link ?? '';
    await c.get('/settings');
    expect(
      (await c.form('/settings/password', { current: PASSWORD, password: 'changed in settings' })).status,
    ).toBe(303);
    const r = await visitor.form('/password/reset', {
      token: tokenOf(link),
      password: 'a brand new passphrase',
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('This link no longer works');
  });

  test('a forged or tampered token is refused', async () => {
    const visitor = new Client(h.app);
    expect((await visitor.get('/password/reset?token=abc.def.ghi')).status).toBe(400);
    expect((await visitor.get('/password/reset')).status).toBe(400);
  });

  test('the reset mail goes out over real SMTP, and its link works', async () => {
    const smtp = await startSmtpCapture();
    try {
      const logger = pino({ level: 'silent' });
      h = await dash('A', {
        mailer: createMailer(
          {
            ...h.deps.config,
            smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'noreply@dash.test' },
          },
          logger,
        ),
      });
      await signedUp(h, 'smtp@example.com', { verify: false });
      // The sign-up's verification mail arrives first (issue 15 item 1), then the reset.
      expect((await smtp.waitFor('smtp@example.com')).raw).toMatch(/^Subject: Confirm your e-mail address/m);
      const visitor = new Client(h.app);
      await visitor.get('/password/forgot');
      await visitor.form('/password/forgot', { email: 'smtp@example.com' });
      const toSmtp = () => smtp.messages.filter((m) => m.to.includes('smtp@example.com'));
      for (let i = 0; i < 200 && toSmtp().length < 2; i += 1) await new Promise((r) => setTimeout(r, 25));
      const mail = toSmtp()[1] ?? { raw: '', text: '' };
      expect(mail.raw).toMatch(/^Subject: Reset your password/m);
      const link = /https?:\/\/\S+\/password\/reset\?token=\S+/.exec(mail.text)?.[0] ?? '';
      expect(link).not.toBe('');
      await visitor.get(pathOf(link));
      const done = await visitor.form('/password/reset', {
        token: tokenOf(link),
        password: 'mailed passphrase 1',
      });
      expect(done.status).toBe(303);
    } finally {
      await smtp.close();
    }
  });
});

describe('settings: password and e-mail (rule set A)', () => {
  beforeEach(async () => {
    h = await dash('A');
  });

  test('changing the password needs the current one and signs out the other sessions, not this one', async () => {
    const c = await signedUp(h, 'carol@example.com');
    const other = await signedIn(h, 'carol@example.com');
    await c.get('/settings');
    const wrong = await c.form('/settings/password', {
      current: 'wrong password!',
      password: 'a new passphrase 2',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('id="f-current-error"');
    const ok = await c.form('/settings/password', { current: PASSWORD, password: 'a new passphrase 2' });
    expect(ok.status).toBe(303);
    expect((await c.get('/settings?done=password')).text).toContain('Password changed');
    expect((await other.get('/settings')).status).toBe(303);
  });

  test('a new e-mail is confirmed from its mailbox; a taken one gets the same answer and no link', async () => {
    const c = await signedUp(h, 'dave@example.com');
    await signedUp(h, 'taken@example.com');
    await c.get('/settings');
    const noPassword = await c.form('/settings/email', { email: 'dave.new@example.com', email_current: '' });
    expect(noPassword.status).toBe(401);

    const taken = await c.form('/settings/email', { email: 'TAKEN@example.com', email_current: PASSWORD });
    expect(taken.status).toBe(200);
    expect(taken.text).toContain('If TAKEN@example.com can be used');
    expect(h.mail.accountMails.filter((m) => m.subject === 'Confirm your new e-mail address')).toHaveLength(
      0,
    );

    const asked = await c.form('/settings/email', { email: 'dave.new@example.com', email_current: PASSWORD });
    expect(asked.status).toBe(200);
    const mail = h.mail.accountMails.at(-1);
    expect(mail).toMatchObject({ to: 'dave.new@example.com', subject: 'Confirm your new e-mail address' });
    const id = (await h.store.findAccountByEmail('dave@example.com'))?.id;
    // Until it is confirmed nothing changes.
    expect((await h.store.getAccount(id ?? ''))?.email).toBe('dave@example.com');
    const other = new Client(h.app);
    expect((await other.get(pathOf(mail?.link ?? ''))).status).toBe(200);
    const confirmed = await other.form('/settings/email/confirm', { token: tokenOf(mail?.link ?? '') });
    expect(confirmed.status).toBe(303);
    expect((await h.store.getAccount(id ?? ''))?.email).toBe('dave.new@example.com');
    // The old session (its stamp names the old address) is over; the link works once.
    expect((await c.get('/settings')).status).toBe(303);
    await other.get('/settings'); // the redirect a browser follows: signed in now, forms carry the session's token
    expect((await other.form('/settings/email/confirm', { token: tokenOf(mail?.link ?? '') })).status).toBe(
      400,
    );
    expect(h.logs.text).toContain('"action":"email.changed"');
  });

  test('the data export holds the account, keys (with restrictions, without secrets), usage, ledger, billing, receipts and alert settings; never a password hash or signing key', async () => {
    const c = await signedUp(h, 'erin@example.com');
    const id = (await h.store.findAccountByEmail('erin@example.com'))?.id ?? '';
    await h.store.credit(id, 5000, 'export-test', h.clock.now());
    await c.get('/keys');
    const created = await c.form('/keys', { label: 'web' });
    expect(created.status).toBe(201);
    const key = (await h.store.listKeys(id))[0];
    await h.store.setKeyRestrictions(key?.id ?? '', { referrers: ['https://*.example.org'], cidrs: [] });
    await h.store.setBilling(
      id,
      { name: 'Erin Ltd', address: '1 Main St', vatId: 'GB123456789' },
      h.clock.now(),
    );
    const { receipt } = await h.store.creditWithReceipt(id, 100, 'export-receipt', h.clock.now(), {
      method: 'test',
      currency: 'EUR',
    });
    await h.store.setNotificationSettings(id, false, 300);
    await h.store.addWebhookEndpoint(
      id,
      'https://hooks.example.org/erin',
      'c2VjcmV0LWtleS1ieXRlcw==',
      5,
      h.clock.now(),
    );
    const r = await c.get('/settings/export.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-disposition']).toBe(`attachment; filename="geocoding-account-${id}.json"`);
    const body = JSON.parse(r.text) as Record<string, unknown>;
    expect(body).toMatchObject({
      ruleSet: 'A',
      account: { id, email: 'erin@example.com', balance: 5100 },
      keys: [{ label: 'web' }],
      usage: { rows: [] },
      billing: { name: 'Erin Ltd', address: '1 Main St', vatId: 'GB123456789' },
      receipts: [{ number: receipt.number, method: 'test', amount: 100, billing: { name: 'Erin Ltd' } }],
      notifications: {
        emailAlerts: false,
        lowBalanceThreshold: 300,
        webhooks: [{ url: 'https://hooks.example.org/erin' }],
      },
    });
    expect((body['keys'] as { restrictions: unknown }[])[0]?.restrictions).toEqual({
      referrers: ['https://*.example.org'],
      cidrs: [],
    });
    expect((body['ledger'] as { kind: string }[]).map((e) => e.kind).sort()).toEqual(['topup', 'topup']);
    expect(r.text).not.toContain('c2VjcmV0LWtleS1ieXRlcw=='); // the webhook signing key
    expect(r.text).not.toMatch(/passwordHash|password_hash|scrypt\$/);
    const account = await h.store.getAccount(id);
    expect(r.text).not.toContain(account?.passwordHash ?? '-');
    expect(r.text).not.toMatch(/gk_[A-Za-z0-9]{20,}/);
  });

  test('settings and the export need a session', async () => {
    const visitor = new Client(h.app);
    expect((await visitor.get('/settings')).status).toBe(303);
    expect((await visitor.get('/settings/export.json')).status).toBe(303);
  });
});

describe('settings (rule set B)', () => {
  beforeEach(async () => {
    h = await dash('B');
  });

  test('the e-mail changes through a link to the new mailbox, without a password; there is no password reset', async () => {
    const c = await signedUp(h, 'frank@example.com');
    await c.get('/settings');
    const asked = await c.form('/settings/email', { email: 'frank.new@example.com' });
    expect(asked.status).toBe(200);
    const mail = h.mail.accountMails.at(-1);
    expect(mail?.to).toBe('frank.new@example.com');
    await c.get(pathOf(mail?.link ?? ''));
    expect((await c.form('/settings/email/confirm', { token: tokenOf(mail?.link ?? '') })).status).toBe(303);
    expect((await h.store.findAccountByEmail('frank.new@example.com'))?.email).toBe('frank.new@example.com');
    // Signed in again by the confirmation, under the new address.
    expect((await c.get('/settings')).text).toContain('frank.new@example.com');
    expect((await new Client(h.app).get('/password/forgot')).status).toBe(404);
  });
});
