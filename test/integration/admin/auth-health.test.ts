import pino from 'pino';
import request from 'supertest';
import { createAdminApp } from '../../../gateway/admin/app';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, harness, newAccount, TOKEN, useAdmin } from './fixture';

describe('admin app: health, auth and request plumbing', () => {
  const h = useAdmin(RULE_SET_A);

  it('answers /healthz without auth', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 without readiness checks', async () => {
    const res = await request(h.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: {} });
  });

  it('answers /readyz 200 when every check is true and 503 with the map otherwise', async () => {
    let checks: Record<string, boolean> = { store: true, redis: true };
    const ready = await harness(RULE_SET_B, { readiness: async () => checks });
    try {
      expect((await request(ready.app).get('/readyz')).status).toBe(200);
      checks = { store: true, redis: false };
      const res = await request(ready.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not_ready', checks: { store: true, redis: false } });
    } finally {
      await ready.close();
    }
  });

  it('answers /readyz 503 when the readiness check throws', async () => {
    const broken = await harness(RULE_SET_B, { readiness: async () => Promise.reject(new Error('boom')) });
    try {
      const res = await request(broken.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('not_ready');
    } finally {
      await broken.close();
    }
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['a token prefix', `Bearer ${TOKEN.slice(0, 10)}`],
    ['another scheme', `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401 problem+json and never logs the token', async (_name, header) => {
    let req = request(h.app).get('/admin/accounts?email=a@example.com');
    if (header !== undefined) req = req.set('Authorization', header);
    const res = await req;
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(h.logs.text).not.toContain(TOKEN.slice(0, 16));
  });

  it('refuses unauthenticated writes before touching the store', async () => {
    const res = await request(h.app)
      .post('/admin/accounts')
      .send({ email: 'x@example.com', name: 'X', password: 'long enough pw' });
    expectProblem(res, 401, 'unauthorized');
    expect(await h.store.findAccountByEmail('x@example.com')).toBeNull();
  });

  it('accepts the scheme name case-insensitively', async () => {
    const res = await request(h.app).get('/admin/accounts/acc_nope').set('Authorization', `bearer ${TOKEN}`);
    expectProblem(res, 404, 'not_found');
  });

  it('logs each request by route pattern with status, never the token', async () => {
    const acc = await newAccount(h);
    await h.call('get', `/admin/accounts/${acc.id}`);
    const lines = h.logs.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'GET', route: '/admin/accounts/:id', status: 200 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'POST', route: '/admin/accounts', status: 201 }),
    );
    expect(h.logs.text).not.toContain(TOKEN);
  });

  it('answers unknown admin paths 404 and wrong methods 405 with Allow', async () => {
    expectProblem(await h.call('get', '/admin/nothing-here'), 404, 'not_found');
    const res = await h.call('delete', '/admin/accounts');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST, GET');
    expectProblem(await h.call('get', '/admin/keys/key_x/revoke'), 405, 'method_not_allowed');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await request(h.app)
      .post('/admin/accounts')
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Content-Type', 'text/plain')
      .send('email=a@example.com');
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('refuses malformed JSON with 400 naming body', async () => {
    const res = await request(h.app)
      .post('/admin/accounts')
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Content-Type', 'application/json')
      .send('{"email": ');
    expectProblem(res, 400, 'invalid_parameter', 'body');
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"x"'],
    ['null', 'null'],
  ])('refuses a JSON body that is %s with 400 naming body', async (_name, text) => {
    const res = await request(h.app)
      .post('/admin/accounts')
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('Content-Type', 'application/json')
      .send(text);
    expectProblem(res, 400, 'invalid_parameter', 'body');
  });

  it('refuses bodies over 16 KiB with 413', async () => {
    const res = await h.call('post', '/admin/accounts', { email: 'a@example.com', name: 'x'.repeat(20_000) });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('refuses to start with a short token', () => {
    const logger = pino({ level: 'silent' });
    expect(() =>
      createAdminApp({
        store: h.store,
        rules: RULE_SET_A,
        pepper: 'p',
        clock: h.clock,
        token: 'short',
        logger,
      }),
    ).toThrow(/at least 16/);
  });
});
