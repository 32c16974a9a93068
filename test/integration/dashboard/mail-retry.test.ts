/** A queued e-mail that fails is logged (never its link) and sent again; the request's answer never shows it. */
import { hashPassword } from '../../../gateway/accounts/password';
import { Client, MailBox, PASSWORD, useDashboards } from './fixture';

const dash = useDashboards();

/** A mailbox whose first `failures` sends throw, like a mail server that is down for a moment. */
class FlakyMailBox extends MailBox {
  constructor(private failures: number) {
    super();
  }
  override async sendAccountLink(to: string, subject: string, text: string, link: string): Promise<void> {
    if (this.failures-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:25');
    return super.sendAccountLink(to, subject, text, link);
  }
}

test('a reset e-mail that fails twice is retried until it is sent; the answer was 200 at once', async () => {
  const mail = new FlakyMailBox(2);
  const h = await dash('A', { mailer: mail, deps: { mailRetryDelaysMs: [20, 20, 20] } });
  await h.store.createAccount(
    { email: 'ada@example.com', name: 'Ada', passwordHash: await hashPassword(PASSWORD) },
    h.clock.now(),
  );
  const c = new Client(h.app);
  await c.get('/password/forgot');
  const r = await c.form('/password/forgot', { email: 'ada@example.com' });
  expect(r.status).toBe(200);
  for (let i = 0; i < 100 && mail.accountMails.length === 0; i++)
    await new Promise((res) => setTimeout(res, 20));
  expect(mail.accountMails).toEqual([
    expect.objectContaining({ to: 'ada@example.com', subject: 'Reset your password' }),
  ]);
  expect(h.logs.text.match(/e-mail not sent; will retry/g)).toHaveLength(2);
  expect(h.logs.text).toContain('"purpose":"password-reset"');
  expect(h.logs.text).not.toContain('token=');
});

test('an e-mail that never goes is given up after the last retry, and logged so', async () => {
  const mail = new FlakyMailBox(100);
  const h = await dash('A', { mailer: mail, deps: { mailRetryDelaysMs: [10] } });
  await h.store.createAccount(
    { email: 'ada@example.com', name: 'Ada', passwordHash: await hashPassword(PASSWORD) },
    h.clock.now(),
  );
  const c = new Client(h.app);
  await c.get('/password/forgot');
  expect((await c.form('/password/forgot', { email: 'ada@example.com' })).status).toBe(200);
  for (let i = 0; i < 100 && !h.logs.text.includes('given up'); i++)
    await new Promise((res) => setTimeout(res, 20));
  expect(h.logs.text).toContain('e-mail not sent; given up');
  expect(mail.accountMails).toHaveLength(0);
});
