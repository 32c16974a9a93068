/**
 * Webhook signing and sending (D30): signatures verify with the independent `standardwebhooks` package; a delivery
 * follows no redirect, is bounded in time and in the answer read, and never reaches a loopback address unless the
 * config allows it (checked on the resolved address).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  newWebhookSecret,
  postWebhook,
  signWebhook,
  webhookUrlProblem,
} from '../../../gateway/notify/webhook';

const OPTS = { timeoutMs: 300, maxResponseBytes: 1024, allowPrivate: true };

async function server(
  handler: http.RequestListener,
): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}

test('a signature made here verifies with standardwebhooks, and fails with another secret or body', () => {
  const secret = newWebhookSecret();
  expect(secret.shown).toBe(`whsec_${secret.key}`);
  const body = '{"type":"notification.test","timestamp":"2026-11-26T00:00:00.000Z","data":{}}';
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(ts),
    'webhook-signature': signWebhook(secret.key, 'evt_1', ts, body),
  };
  expect(new Webhook(secret.shown).verify(body, headers)).toMatchObject({ type: 'notification.test' });
  expect(() => new Webhook(newWebhookSecret().shown).verify(body, headers)).toThrow();
  expect(() => new Webhook(secret.shown).verify(`${body} `, headers)).toThrow();
});

test.each([
  ['https://hooks.example.com/x', false, null],
  ['http://hooks.example.com/x', false, 'must start with https://'],
  ['http://hooks.example.com/x', true, 'must start with https://'],
  ['http://127.0.0.1:9/x', true, null],
  ['http://127.0.0.1:9/x', false, 'must not point to a loopback or private address'],
  ['https://192.168.1.1/x', false, 'must not point to a loopback or private address'],
  ['https://[fe80::1]/x', false, 'must not point to a loopback or private address'],
  ['https://[::ffff:10.0.0.1]/x', false, 'must not point to a loopback or private address'],
  ['https://[2a00:1450:4001:82a::200e]/x', false, null],
  ['https://8.8.8.8/x', false, null],
  ...[
    '[::127.0.0.1]', // IPv4-compatible (normalised to [::7f00:1])
    '[::ffff:8.8.8.8]', // IPv4-mapped, even of a public address
    '[::ffff:7f00:1]',
    '[64:ff9b::7f00:1]', // NAT64
    '[64:ff9b:1::a00:1]', // local-use NAT64
    '[2002:7f00:1::1]', // 6to4
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', // Teredo
    '[2001:db8::1]', // documentation
    '[3fff::1]', // documentation (RFC 9637)
    '[fd00::1]', // unique local
    '[fec0::1]', // site-local
    '[ff02::1]', // multicast
    '[::]',
    '[::1]',
    '[100::1]', // discard
    '[4000::1]', // outside 2000::/3
    '0.0.0.0',
    '100.64.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
  ].map((h): [string, boolean, string | null] => [
    `https://${h}/x`,
    false,
    'must not point to a loopback or private address',
  ]),
  ['https://user:pw@hooks.example.com/x', false, 'must not contain a user name or password'],
  ['ftp://hooks.example.com/x', false, 'must start with https://'],
])('URL %s (private allowed: %s) → %s', (url, allow, problem) => {
  expect(webhookUrlProblem(url, allow)).toBe(problem);
});

test('an IP literal is checked before connecting: a loopback literal is never reached without allowPrivate', async () => {
  const s = await server((_q, res) => res.end('ok'));
  const port = new URL(s.url).port;
  const strict = { ...OPTS, allowPrivate: false };
  try {
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', strict)).toEqual({
      error: 'private_target',
    });
    expect(await postWebhook(`https://[::127.0.0.1]:${port}/hook`, {}, '{}', strict)).toEqual({
      error: 'private_target',
    });
    expect(s.hits).toEqual([]);
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', OPTS)).toEqual({ status: 200 });
  } finally {
    await s.close();
  }
});

test('a redirect is not followed: its status is the outcome and the target is never asked', async () => {
  const target = await server((_q, res) => res.end('ok'));
  const s = await server((_q, res) => res.writeHead(302, { location: `${target.url}/elsewhere` }).end());
  expect(await postWebhook(`${s.url}/hook`, {}, '{}', OPTS)).toEqual({ status: 302 });
  expect(target.hits).toEqual([]);
  await Promise.all([s.close(), target.close()]);
});

test('a slow receiver times out; a huge answer is cut at the bound', async () => {
  const slow = await server(() => undefined);
  expect(await postWebhook(slow.url, {}, '{}', OPTS)).toEqual({ error: 'timeout' });
  await slow.close();
  const huge = await server((_q, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (res.write(chunk));
      res.once('drain', pump);
    };
    pump();
  });
  expect(await postWebhook(huge.url, {}, '{}', { ...OPTS, timeoutMs: 2000 })).toEqual({ status: 200 });
  await huge.close();
});

test('with private targets refused, a name resolving to loopback is refused at connection time', async () => {
  const s = await server((_q, res) => res.end());
  expect(await postWebhook(s.url, {}, '{}', { ...OPTS, allowPrivate: false })).toEqual({
    error: 'private_target',
  });
  expect(s.hits).toEqual([]);
  await s.close();
});
