/**
 * No account enumeration by time or answer: the forms that mail (rule set A's password reset, B's sign-in link, the
 * e-mail change) answer alike and in the same time whether or not the address has an account, with a real SMTP
 * server that is slow (smtp-server delaying its answers): the mail is queued, never awaited by the request.
 */
import { hashPassword } from '../../../gateway/accounts/password';
import { SIGNIN_LIMITS } from '../../../dashboard/throttle';
import { startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';
import { Client, PASSWORD, signedUp, useDashboards, type Harness } from './fixture';

jest.setTimeout(120_000);

/** The SMTP server waits this long before answering the connection and each message's end. */
const SLOW_MS = 450;
const TRIES = 20;
/** How far apart the two paths may be (median of paired differences). */
const WITHIN_MS = 10;

const dash = useDashboards();
let smtp: SmtpCapture;
beforeEach(async () => {
  smtp = await startSmtpCapture({ delayMs: SLOW_MS });
});
afterEach(() => smtp.close());

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
}

/** A dashboard mailing through the slow server: the real nodemailer mailer of the config, none injected. */
async function slowMailDashboard(set: 'A' | 'B'): Promise<Harness> {
  const from = 'Geocoding <no-reply@example.com>';
  const smtpConfig = { host: smtp.host, port: smtp.port, secure: false, from };
  return dash(set, { config: { smtp: smtpConfig }, mailer: null });
}

/**
 * Time TRIES pairs of posts of `known` and `unknown` (each answered 200), alternating which goes first; the clock
 * moves past the sign-in limits' window now and then, so the limits never answer instead. Returns both medians and
 * the median of the paired differences (a loaded machine slows both of a pair alike, so that one is the measure).
 */
async function timeBoth(
  h: Harness,
  post: (email: string) => Promise<{ status: number; text: string }>,
  known: string,
  unknown: string,
): Promise<{ known: number; unknown: number; difference: number }> {
  const times = { known: [] as number[], unknown: [] as number[] };
  await post(unknown); // warm-up (first compilations, first connection)
  h.clock.advance(SIGNIN_LIMITS.windowMs);
  for (let i = 0; i < TRIES; i++) {
    if (i % 4 === 0) h.clock.advance(SIGNIN_LIMITS.windowMs);
    const pair = [
      ['known', known],
      ['unknown', unknown],
    ] as const;
    for (const [which, email] of i % 2 === 0 ? pair : [...pair].reverse()) {
      const t0 = process.hrtime.bigint();
      const r = await post(email);
      times[which].push(Number(process.hrtime.bigint() - t0) / 1e6);
      expect(r.status).toBe(200);
    }
  }
  const differences = times.known.map((k, i) => k - (times.unknown[i] as number));
  return { known: median(times.known), unknown: median(times.unknown), difference: median(differences) };
}

/** The two answers' pages are the same but for the address in them. */
async function samePage(
  post: (email: string) => Promise<{ text: string }>,
  a: string,
  b: string,
): Promise<void> {
  const strip = (t: string, e: string) =>
    t
      .replaceAll(e, 'EMAIL')
      .replace(/name="_csrf" value="[^"]*"/g, '')
      .replace(/content="[^"]*"/g, '');
  expect(strip((await post(a)).text, a)).toBe(strip((await post(b)).text, b));
}

test('A: "forgot password" answers alike and in the same time for an account and an unknown address', async () => {
  const h = await slowMailDashboard('A');
  const account = await h.store.createAccount(
    { email: 'ada@example.com', name: 'Ada', passwordHash: await hashPassword(PASSWORD) },
    h.clock.now(),
  );
  const c = new Client(h.app);
  await c.get('/password/forgot');
  const post = (email: string) => c.form('/password/forgot', { email });
  const m = await timeBoth(h, post, account.email, 'nobody@example.com');
  process.stdout.write(
    `forgot: median known ${m.known.toFixed(1)} ms, unknown ${m.unknown.toFixed(1)} ms, paired ${m.difference.toFixed(1)} ms\n`,
  );
  expect(Math.abs(m.difference)).toBeLessThan(WITHIN_MS);
  await samePage(post, account.email, 'nobody@example.com');
  // The mails do arrive, through the slow server, after the answers.
  const reset = await smtp.waitFor('ada@example.com', 30_000);
  expect(reset.text).toContain('/password/reset?token=');
  expect(smtp.messages.some((mail) => mail.to.includes('nobody@example.com'))).toBe(false);
});

test('B: the sign-in link form answers alike and in the same time for an account and an unknown address', async () => {
  const h = await slowMailDashboard('B');
  const account = await h.store.createAccount({ email: 'ben@example.com' }, h.clock.now());
  const c = new Client(h.app);
  await c.get('/signin');
  const post = (email: string) => c.form('/signin', { email });
  const m = await timeBoth(h, post, account.email, 'nobody@example.com');
  process.stdout.write(
    `sign-in link: median known ${m.known.toFixed(1)} ms, unknown ${m.unknown.toFixed(1)} ms, paired ${m.difference.toFixed(1)} ms\n`,
  );
  expect(Math.abs(m.difference)).toBeLessThan(WITHIN_MS);
  await samePage(post, account.email, 'nobody@example.com');
  expect((await smtp.waitFor('ben@example.com', 30_000)).text).toContain('/signin/link?token=');
});

test('the e-mail change form answers alike and in the same time for a taken and a free address', async () => {
  const h = await slowMailDashboard('B');
  await h.store.createAccount({ email: 'taken@example.com' }, h.clock.now());
  // Sign up through a link read from the slow server's mailbox.
  const c = new Client(h.app);
  await c.get('/signup');
  await c.form('/signup', { email: 'cy@example.com' });
  const link = new URL(/https?:\/\/\S+/.exec((await smtp.waitFor('cy@example.com', 30_000)).text)?.[0] ?? '');
  await c.get(link.pathname + link.search);
  expect((await c.form('/signin/link', { token: link.searchParams.get('token') ?? '' })).status).toBe(303);
  await c.get('/settings');
  const post = (email: string) => c.form('/settings/email', { email });
  const m = await timeBoth(h, post, 'taken@example.com', 'cy.new@example.com');
  process.stdout.write(
    `e-mail change: median taken ${m.known.toFixed(1)} ms, free ${m.unknown.toFixed(1)} ms, paired ${m.difference.toFixed(1)} ms\n`,
  );
  expect(Math.abs(m.difference)).toBeLessThan(WITHIN_MS);
  expect((await smtp.waitFor('cy.new@example.com', 30_000)).text).toContain('/settings/email/confirm?token=');
});

test('A: sign-up with a registered address answers at once without naming the account and mails its owner', async () => {
  const h = await slowMailDashboard('A');
  await signedUp(h, 'ada@example.com', { verify: false });
  const c = new Client(h.app);
  await c.get('/signup');
  const r = await c.form('/signup', { email: 'Ada@Example.com', name: 'Eve', password: PASSWORD });
  expect(r.status).toBe(200);
  expect(r.text).not.toMatch(/already registered/);
  const mails = async () => smtp.messages.filter((mail) => mail.to.includes('ada@example.com'));
  await smtp.waitFor('ada@example.com', 30_000);
  for (let i = 0; i < 100 && (await mails()).length < 2; i++)
    await new Promise((res) => setTimeout(res, 100));
  const owner = (await mails()).find((mail) => /You already have an account/.test(mail.raw));
  expect(owner?.text).toContain('/password/forgot');
});
