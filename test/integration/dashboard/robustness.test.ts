/** Bad input gets a clear error naming the field, never a crash or a 500. */
import request from 'supertest';
import { ORIGIN, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

describe('bad input', () => {
  test.each([
    ['post', '/api/whitelist', { address: 123 }, 400, 'address'],
    ['post', '/api/whitelist', [], 400, 'address'],
    ['post', '/api/keys', { label: 'x'.repeat(101) }, 400, 'label'],
    ['post', '/api/credit/top-ups', { amount: '5' }, 400, 'topUpId'],
    ['post', '/api/credit/top-ups', { amount: { n: 1 }, idempotencyKey: 'abcdefgh1' }, 400, 'amount'],
    ['get', '/api/keys/' + 'x'.repeat(300), undefined, 404, undefined],
    ['get', '/api/usage?subject=a&subject=b', undefined, 404, undefined],
  ] as const)('%s %s %j → %i naming %s', async (method, path, body, status, field) => {
    h = await dash('B');
    const c = await signedUp(h, 'x@example.com');
    const r = await c.api(method, path, body);
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toContain('application/problem+json');
    if (field) expect(r.body.field).toBe(field);
  });

  test('malformed JSON → 400 naming the body; an oversized body → 413', async () => {
    h = await dash('A');
    const c = await signedUp(h, 'x@example.com');
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const bad = await request(h.app)
      .post('/api/keys')
      .set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': c.csrf, 'Content-Type': 'application/json' })
      .send('{"label":');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('body');
    const big = await request(h.app)
      .post('/api/keys')
      .set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': c.csrf, 'Content-Type': 'application/json' })
      .send(JSON.stringify({ label: 'x'.repeat(40_000) }));
    expect(big.status).toBe(413);
  });

  test('repeated form fields (arrays) on sign-in are refused, not crashed on', async () => {
    h = await dash('A');
    await signedUp(h, 'x@example.com');
    const c = await signedUp(h, 'y@example.com');
    await c.form('/signout', {});
    await c.get('/signin');
    const r = await request(h.app)
      .post('/signin')
      .set({ Cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '), Origin: ORIGIN })
      .type('form')
      .send(
        `_csrf=${encodeURIComponent(c.csrf)}&email=x%40example.com&email=y%40example.com&password=a&password=b`,
      );
    expect(r.status).toBe(400);
    expect(r.text).toContain('id="f-email-error"');
  });

  test('a mail server that fails does not show in the answer (B): the failure is logged and retried', async () => {
    h = await dash('B', {
      mailer: {
        async sendSignInLink() {
          throw new Error('connection refused');
        },
        async sendAccountLink() {
          throw new Error('connection refused');
        },
        async sendNotice() {
          throw new Error('connection refused');
        },
      },
    });
    const c = new (await import('./harness')).Client(h.app);
    await c.get('/signup');
    const r = await c.form('/signup', { email: 'z@example.com' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Check your mailbox');
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.logs.text).toContain('e-mail not sent; will retry');
    expect(h.logs.text).not.toContain('token=');
  });
});
