/**
 * The leaked-key report (D39) on a running gateway: `POST /v1/keys/report` revokes the presented key (its current
 * secret, or the previous one within its rotation's overlap), tells the owner by e-mail (the notifications' real
 * worker), and answers the same for a valid, revoked, unknown or malformed key; reports are limited per address.
 */
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { REPORT_LIMITS } from '../../../gateway/http/key-report';
import { Notifications } from '../../../gateway/notify';
import { notificationsConfigSchema } from '../../../gateway/notify/config';
import { call, PEPPER } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

const mails: { to: string; subject: string; text: string }[] = [];
let g: Injected;
let notifications: Notifications;

beforeAll(async () => {
  g = await startInjected('A', { trustProxy: ['127.0.0.1/32'] }, undefined, (store, { clock, config }) => {
    notifications = new Notifications({
      store,
      rules: config.rules,
      clock,
      config: notificationsConfigSchema.parse({}),
      mailer: { sendNotice: async (to, subject, text) => void mails.push({ to, subject, text }) },
      logger: { warn: () => undefined },
    });
    notifications.start();
    return { notifications };
  });
});
afterAll(async () => {
  await notifications.stop();
  await g.close();
});

const report = (body: string, from = '198.51.100.7', type = 'application/json') =>
  call(g.mainUrl, '/v1/keys/report', {
    method: 'POST',
    body,
    headers: { 'content-type': type, 'x-forwarded-for': from },
  });
const use = (key: string) =>
  call(g.mainUrl, '/v1/reverse?lat=48.85&lon=2.29', { headers: { 'x-api-key': key } });

async function mailTo(email: string): Promise<{ subject: string; text: string }> {
  for (let i = 0; i < 200; i++) {
    const m = mails.find((x) => x.to === email);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no mail to ${email}`);
}

test('revokes a reported key at once and mails its owner; the answer is the same for every kind of value', async () => {
  const acc = await g.account(100);
  const { key, id } = await g.key(acc.id);
  expect((await use(key)).status).toBe(200);
  const answers = [];
  answers.push(await report(JSON.stringify({ key })));
  expect((await g.store.getKey(id))?.status).toBe('revoked');
  expect((await use(key)).status).toBe(401);
  const mail = await mailTo(acc.email);
  expect(mail.subject).toBe('A key was revoked');
  expect(mail.text).toContain('reported it as leaked');
  expect(mail.text).not.toContain(key);
  // Again (now revoked), an unknown key, a checksum-less shape, random text, a form body: the same answer.
  answers.push(await report(JSON.stringify({ key })));
  answers.push(await report(JSON.stringify({ key: generateKey() })));
  answers.push(await report(JSON.stringify({ key: 'gk_' + 'a'.repeat(43) })));
  answers.push(await report(JSON.stringify({ key: 'hello world' })));
  answers.push(
    await report(`key=${encodeURIComponent(generateKey())}`, undefined, 'application/x-www-form-urlencoded'),
  );
  for (const r of answers) {
    expect({ status: r.status, body: r.text, type: r.headers['content-type'] }).toEqual({
      status: answers[0]?.status,
      body: answers[0]?.text,
      type: answers[0]?.headers['content-type'],
    });
  }
  expect(answers[0]?.status).toBe(202);
  expect(answers[0]?.text).not.toMatch(/acc_|key_|@/);
  expect(g.logs.join('\n')).not.toContain(key);
});

test('a form body works, and the previous secret of a rotation reported within its overlap revokes the key', async () => {
  const acc = await g.account(0);
  const { key, id } = await g.key(acc.id);
  const fresh = generateKey();
  await g.store.rotateKey(
    id,
    { hash: hashKey(fresh, PEPPER), prefix: keyPrefix(fresh) },
    g.clock.now() + 60_000,
    g.clock.now(),
  );
  const r = await report(
    `key=${encodeURIComponent(key)}`,
    '198.51.100.8',
    'application/x-www-form-urlencoded',
  );
  expect(r.status).toBe(202);
  expect((await g.store.getKey(id))?.status).toBe('revoked');
  expect((await use(fresh)).status).toBe(401);
});

test('a body without a key is refused 400 naming `key`; other methods are not the route', async () => {
  for (const body of ['{}', '{"key": ""}', 'not json', JSON.stringify({ key: 5 })]) {
    const r = await report(body, '198.51.100.9');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_parameter', parameter: 'key' });
  }
  const get = await call(g.mainUrl, '/v1/keys/report', { headers: { 'x-forwarded-for': '198.51.100.9' } });
  expect(get.status).not.toBe(202);
});

test('limits reports per address like sign-in attempts (429 with Retry-After), whatever the key', async () => {
  const from = '203.0.113.50';
  for (let i = 0; i < REPORT_LIMITS.perAddress; i++) {
    expect((await report(JSON.stringify({ key: generateKey() }), from)).status).toBe(202);
  }
  const over = await report(JSON.stringify({ key: generateKey() }), from);
  expect(over.status).toBe(429);
  expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  // A valid key from that address is not revoked while it is limited; another address may report.
  const acc = await g.account(0);
  const { key, id } = await g.key(acc.id);
  expect((await report(JSON.stringify({ key }), from)).status).toBe(429);
  expect((await g.store.getKey(id))?.status).toBe('active');
  expect((await report(JSON.stringify({ key }), '203.0.113.51')).status).toBe(202);
  expect((await g.store.getKey(id))?.status).toBe('revoked');
});
