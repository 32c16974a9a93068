/**
 * The forward-auth listener itself (D38), asked directly as a proxy would (real gateway and backend processes): only
 * trusted proxies are answered; the release route releases an admission within its window, once, and never after;
 * the listener's own bad input gets clear 4xx answers.
 */
import { useBackendProcess, useTempDir } from '../harness';
import { useFixture } from '../../helpers/fixture';
import { ADMIN_TOKEN, ask, HOST, startStand, WINDOW_MS, type Seen } from './stand';

jest.setTimeout(60_000);

const backend = useBackendProcess();
let dir = '';
useTempDir('gg-fa-listener-', (d) => (dir = d));
const stand = useFixture(
  'listener stand',
  () => startStand('B', 'nginx', dir, backend.url),
  (s) => s.stop(),
);

/** Ask /v1/admit about `uri` for the client `client` (as nginx would: from 127.0.0.1, the trusted proxy). */
const admit = (uri: string, client: string, extra: Record<string, string> = {}): Promise<Seen> =>
  ask(stand.admitUrl, '/v1/admit', {
    headers: {
      'x-original-uri': uri,
      'x-original-method': 'GET',
      'x-forwarded-host': HOST,
      'x-forwarded-for': client,
      ...extra,
    },
  });
const release = (id: string, extra: Record<string, string> = {}): Promise<Seen> =>
  ask(stand.admitUrl, '/v1/release', { method: 'POST', headers: { 'x-geogate-admission': id, ...extra } });
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';
const used = (s: Seen): string | undefined => s.headers['x-quota-used'] as string | undefined;

test('an untrusted peer is refused 403 untrusted_proxy, whatever it claims', async () => {
  const s = await ask(stand.admitUrl, '/v1/admit', {
    from: '127.0.0.9',
    headers: { 'x-original-uri': REVERSE, 'x-forwarded-host': HOST },
  });
  expect(s.status).toBe(403);
  expect(s.json).toEqual(expect.objectContaining({ code: 'untrusted_proxy' }));
});

test('admitted: 200 with the quota headers and an unguessable admission id; nothing in the body', async () => {
  const s = await admit(REVERSE, '198.51.100.1');
  expect(s.status).toBe(200);
  expect(s.text).toBe('');
  // A known empty length, not chunked: nginx keeps its upstream connection to geogate alive only then.
  expect(s.headers['content-length']).toBe('0');
  expect(s.headers['transfer-encoding']).toBeUndefined();
  expect(used(s)).toBe('1');
  expect(s.headers['x-geogate-admission']).toMatch(/^[A-Za-z0-9_-]{22}$/);
  const again = await admit(REVERSE, '198.51.100.1');
  expect(again.headers['x-geogate-admission']).not.toBe(s.headers['x-geogate-admission']);
});

test('a release within the window undoes the admission, once; a second release changes nothing', async () => {
  const client = '198.51.100.2';
  const first = await admit(REVERSE, client);
  const id = first.headers['x-geogate-admission'] as string;
  const released = await release(id, { 'x-geogate-upstream-status': '504' });
  expect(released.status).toBe(504);
  expect(released.headers['x-geogate-released']).toBe('true');
  expect(released.json).toEqual(expect.objectContaining({ code: 'backend_timeout' }));
  const twice = await release(id);
  expect(twice.headers['x-geogate-released']).toBe('false');
  expect(twice.status).toBe(502);
  // The released admission gave its unit back: the next admission is the first again.
  expect(used(await admit(REVERSE, client))).toBe('1');
});

test('after the window the decision stands: the release changes nothing', async () => {
  const client = '198.51.100.3';
  const first = await admit(REVERSE, client);
  expect(used(first)).toBe('1');
  await new Promise((r) => setTimeout(r, WINDOW_MS + 600));
  const late = await release(first.headers['x-geogate-admission'] as string);
  expect(late.headers['x-geogate-released']).toBe('false');
  expect(used(await admit(REVERSE, client))).toBe('2');
});

test('the release route: a missing or malformed id is a 400 naming the header; GET is 405', async () => {
  for (const bad of [{}, { 'x-geogate-admission': 'short' }]) {
    const s = await ask(stand.admitUrl, '/v1/release', { method: 'POST', headers: bad });
    expect(s.status).toBe(400);
    expect(s.json).toEqual(
      expect.objectContaining({ code: 'invalid_parameter', parameter: 'header:x-geogate-admission' }),
    );
  }
  const unknown = await release('A'.repeat(22));
  expect(unknown.headers['x-geogate-released']).toBe('false');
  const get = await ask(stand.admitUrl, '/v1/release');
  expect(get.status).toBe(405);
  expect(get.headers['allow']).toBe('POST');
});

test('the original request: a missing or malformed X-Original-URI is a 400 naming the header, never a 500', async () => {
  const none = await ask(stand.admitUrl, '/v1/admit', { headers: { 'x-forwarded-host': HOST } });
  expect(none.status).toBe(400);
  expect(none.json).toEqual(expect.objectContaining({ parameter: 'header:x-original-uri' }));
  const bad = await admit('reverse?lat=1', '198.51.100.4');
  expect(bad.status).toBe(400);
  expect(String(bad.json?.['detail'])).toContain('not an origin-form request target');
  const params = await admit('/v1/reverse?lat=91&lon=0', '198.51.100.4');
  expect(params.status).toBe(400);
  expect(params.json).toEqual(expect.objectContaining({ code: 'invalid_parameter' }));
});

test('a proxy that asks for a deny status gets it, with the refusal sealed; /v1/refusal answers it as rendered', async () => {
  const s = await admit('/v1/nowhere', '198.51.100.5', { 'x-geogate-deny-status': '403' });
  expect(s.status).toBe(403);
  expect(s.headers['x-geogate-status']).toBe('404');
  const shown = await ask(stand.admitUrl, '/v1/refusal', {
    headers: { 'x-geogate-refusal': s.headers['x-geogate-refusal'] as string },
  });
  expect(shown.status).toBe(404);
  expect(shown.json).toEqual(expect.objectContaining({ code: 'not_found' }));
  const forged = await ask(stand.admitUrl, '/v1/refusal', { headers: { 'x-geogate-refusal': 'e30.AAAA' } });
  expect(forged.status).toBe(400);
  expect(forged.json).toEqual(expect.objectContaining({ parameter: 'header:x-geogate-refusal' }));
});

test('a CORS preflight is allowed and never counted (D11); an unknown route is 404', async () => {
  const client = '198.51.100.6';
  const pre = await ask(stand.admitUrl, '/v1/admit', {
    headers: {
      'x-original-uri': REVERSE,
      'x-original-method': 'OPTIONS',
      'x-forwarded-host': HOST,
      'x-forwarded-for': client,
    },
  });
  expect(pre.status).toBe(200);
  expect(pre.headers['x-geogate-admission']).toBeUndefined();
  expect(used(await admit(REVERSE, client))).toBe('1');
  expect((await ask(stand.admitUrl, '/v1/other')).status).toBe(404);
});

test('a test key (D40) rehearses refusals behind forward auth but is never allowed through to the backend', async () => {
  const { accountId } = await stand.customer(0);
  const made = await fetch(`${stand.adminUrl}/admin/accounts/${accountId}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ test: true }),
  });
  const testKey = ((await made.json()) as { key: string }).key;
  expect(testKey).toMatch(/^gk_test_/);
  const withKey = (extra: string) => admit(`${REVERSE}${extra}`, '198.51.100.40', { 'x-api-key': testKey });
  const refused = await withKey('&scenario=402');
  expect(refused.status).toBe(402);
  expect(refused.json).toEqual(expect.objectContaining({ code: 'no_credits' }));
  // A success would be a 2xx, which lets the proxy forward the request: refused instead, naming `scenario`.
  const success = await withKey('');
  expect(success.status).toBe(400);
  expect(success.json).toEqual(expect.objectContaining({ code: 'invalid_parameter', parameter: 'scenario' }));
  expect(success.headers['x-geogate-admission']).toBeUndefined();
});
