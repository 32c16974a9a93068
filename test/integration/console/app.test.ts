/**
 * The console app over a real embedded store (supertest): sign-in by role, search, account actions with their audit
 * lines naming the operator, role checks (support cannot credit: 403), and bad input answered 400/401/403/404,
 * never 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { createConsole } from '../../../console/app';
import { hashPassword } from '../../../gateway/accounts/password';
import { ManualClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { RULE_SET_A, RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store';
import type { Store } from '../../../gateway/store/ports';
import { LogCapture } from '../admin/fixture';

jest.setTimeout(60_000);

const TOKEN = 'console-admin-token-0123456789';
const PEPPER = 'console-pepper';
const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const SUPPORT_PW = 'support password 1';
const ADMIN_PW = 'admin password 123';

interface World {
  app: express.Express;
  store: Store;
  logs: LogCapture;
  close(): Promise<void>;
}

async function world(rules: RuleSet): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-console-app-'));
  const clock = new ManualClock(T0);
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  const logs = new LogCapture();
  const app = express();
  app.use(
    '/console',
    createConsole({
      store,
      rules,
      pepper: PEPPER,
      clock,
      logger: pino({ level: 'info' }, logs),
      adminToken: TOKEN,
      readiness: async () => ({ sqlite: true }),
    }),
  );
  await store.createOperator(
    { name: 'sam', role: 'support', passwordHash: await hashPassword(SUPPORT_PW) },
    T0,
  );
  await store.createOperator({ name: 'alex', role: 'admin', passwordHash: await hashPassword(ADMIN_PW) }, T0);
  return {
    app,
    store,
    logs,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Keeps cookies by name as a browser on http://127.0.0.1 does (Secure cookies included: a secure context). */
class Client {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly app: express.Express) {}
  private keep(res: request.Response): request.Response {
    for (const c of (res.headers['set-cookie'] as unknown as string[] | undefined) ?? []) {
      const [pair] = c.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (/Max-Age=0/.test(c)) this.cookies.delete(name ?? '');
      else this.cookies.set(name ?? '', value.join('='));
    }
    return res;
  }
  private header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async get(path: string): Promise<request.Response> {
    return this.keep(await request(this.app).get(path).set('Cookie', this.header()));
  }
  async post(path: string, form: Record<string, string>): Promise<request.Response> {
    return this.keep(await request(this.app).post(path).set('Cookie', this.header()).type('form').send(form));
  }
}

/** A signed-in agent and its CSRF token. */
async function signIn(w: World, form: Record<string, string>) {
  const agent = new Client(w.app);
  const page = await agent.get('/console/signin');
  const res = await agent.post('/console/signin', { ...form, _csrf: csrfOf(page.text) });
  expect(res.status).toBe(303);
  const home = await agent.get('/console/');
  expect(home.status).toBe(200);
  return { agent, csrf: csrfOf(home.text), home: home.text };
}

function auditLines(logs: LogCapture): Record<string, unknown>[] {
  return logs.text
    .split('\n')
    .filter((l) => l.includes('"audit":true'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('operator console (rule set A)', () => {
  let w: World;
  let accountId: string;
  let keyId: string;
  let secret: string;
  beforeAll(async () => {
    w = await world(RULE_SET_A);
    const acc = await w.store.createAccount({ email: 'customer@example.org', name: 'C' }, T0);
    accountId = acc.id;
    secret = generateKey();
    const key = await w.store.createKey(
      { accountId, hash: hashKey(secret, PEPPER), prefix: keyPrefix(secret), kind: 'payg' },
      T0,
    );
    keyId = key.id;
  });
  afterAll(() => w.close());

  it('sends visitors to the sign-in page and refuses wrong credentials with 401', async () => {
    const res = await request(w.app).get('/console/');
    expect(res.status).toBe(303);
    expect(res.headers['location']).toBe('/console/signin');
    const agent = new Client(w.app);
    const page = await agent.get('/console/signin');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const bad = await agent.post('/console/signin', {
      name: 'sam',
      password: 'not the password',
      _csrf: csrfOf(page.text),
    });
    expect(bad.status).toBe(401);
    const token = await agent.post('/console/signin', {
      token: 'not-the-admin-token-at-all',
      _csrf: csrfOf(page.text),
    });
    expect(token.status).toBe(401);
    // Without the CSRF token, even the right password is refused.
    const noCsrf = await agent.post('/console/signin', { name: 'sam', password: SUPPORT_PW });
    expect(noCsrf.status).toBe(403);
  });

  it('signs in with the admin token as the built-in admin and shows the overview with health', async () => {
    const { home } = await signIn(w, { token: TOKEN });
    expect(home).toContain('admin-token');
    expect(home).toContain('sqlite: <strong>ready</strong>');
    const line = auditLines(w.logs).find((l) => l['action'] === 'operator.signed_in');
    expect(line).toMatchObject({ operator: 'admin-token', actor: 'operator' });
    expect(w.logs.text).not.toContain(TOKEN);
  });

  it('finds a customer by key prefix and by the whole key; support revokes a key, audited with its name', async () => {
    const { agent, csrf } = await signIn(w, { name: 'SAM', password: SUPPORT_PW });
    const found = await agent.get(`/console/search?q=${encodeURIComponent(keyPrefix(secret))}`);
    expect(found.status).toBe(303);
    expect(found.headers['location']).toBe(`/console/accounts/${accountId}`);
    const whole = await agent.get(`/console/search?q=${encodeURIComponent(secret)}`);
    expect(whole.headers['location']).toBe(`/console/accounts/${accountId}`);
    const page = await agent.get(`/console/accounts/${accountId}`);
    expect(page.text).toContain('customer@example.org');
    expect(page.text).not.toContain('Add credit'); // support sees no credit form
    expect(w.logs.text).not.toContain(secret);

    const credit = await agent.post(`/console/accounts/${accountId}/credit`, {
      _csrf: csrf,
      amount: '10',
      reason: 'goodwill',
    });
    expect(credit.status).toBe(403);
    expect((await w.store.getAccount(accountId))?.balance).toBe(0);

    const revoke = await agent.post(`/console/accounts/${accountId}/keys/${keyId}/revoke`, { _csrf: csrf });
    expect(revoke.status).toBe(303);
    expect((await w.store.getKey(keyId))?.status).toBe('revoked');
    expect(auditLines(w.logs).find((l) => l['action'] === 'key.revoked')).toMatchObject({
      operator: 'sam',
      account: accountId,
      object: keyId,
    });
    const again = await agent.post(`/console/accounts/${accountId}/keys/${keyId}/revoke`, { _csrf: csrf });
    expect(again.status).toBe(409);
  });

  it('lets an admin add credit with a reason (audited) and suspend and resume', async () => {
    const { agent, csrf } = await signIn(w, { name: 'alex', password: ADMIN_PW });
    const res = await agent.post(`/console/accounts/${accountId}/credit`, {
      _csrf: csrf,
      amount: '12.5',
      reason: 'refund of an outage',
    });
    expect(res.status).toBe(303);
    expect((await w.store.getAccount(accountId))?.balance).toBe(125_000);
    expect(auditLines(w.logs).find((l) => l['action'] === 'account.topped_up')).toMatchObject({
      operator: 'alex',
      reason: 'refund of an outage',
      units: 125_000,
    });
    await agent.post(`/console/accounts/${accountId}/suspend`, { _csrf: csrf });
    expect((await w.store.getAccount(accountId))?.status).toBe('suspended');
    await agent.post(`/console/accounts/${accountId}/resume`, { _csrf: csrf });
    expect((await w.store.getAccount(accountId))?.status).toBe('active');
    const page = await agent.get(`/console/accounts/${accountId}?done=credit`);
    expect(page.text).toContain('Credit added.');
    expect(page.text).toContain('12.5000 EUR');
  });

  it('shows the stored audit log: newest first, naming the operators, by account, paged; the account page shows the last lines', async () => {
    const { agent } = await signIn(w, { name: 'sam', password: SUPPORT_PW });
    const log = await agent.get('/console/audit');
    expect(log.status).toBe(200);
    const rows = (text: string) =>
      [
        ...text.matchAll(
          /<tr data-action="([^"]+)">\s*<td>[^<]*<\/td>\s*<td data-field="operator">([^<]*)<\/td>/g,
        ),
      ].map((m) => `${m[2]?.trim()} ${m[1]}`);
    // The earlier tests' actions, newest first: alex credited, suspended, resumed; sam revoked; sign-ins between.
    const seen = rows(log.text);
    expect(seen[0]).toBe('sam operator.signed_in');
    const order = [
      'alex account.reinstated',
      'alex account.suspended',
      'alex account.topped_up',
      'sam key.revoked',
    ];
    expect(seen.filter((r) => order.includes(r))).toEqual(order);
    expect(log.text).toContain('reason: refund of an outage');
    expect(log.text).toContain('units: 12.5000 EUR');
    expect(log.text).not.toContain(secret);

    const stored = await w.store.auditLog({ accountId, limit: 200 });
    expect(stored.map((e) => `${e.operator} ${e.action}`)).toEqual(order);
    expect(stored[2]).toMatchObject({
      actor: 'operator',
      details: { reason: 'refund of an outage', units: 125_000 },
    });
    expect(JSON.stringify(stored)).not.toContain(secret);

    const mine = await agent.get(`/console/audit?account=${accountId}`);
    expect(rows(mine.text)).toEqual(order);
    const page = await agent.get(`/console/accounts/${accountId}`);
    expect(rows(page.text)).toEqual(order);

    // Pages of 50: 60 more lines of another account; the second page starts where the first ended.
    for (let i = 0; i < 60; i++)
      await w.store.recordAudit(
        {
          at: T0 + i,
          actor: 'operator',
          operator: 'bulk',
          action: 'account.suspended',
          accountId: 'acc_bulk',
          object: null,
          details: {},
        },
        T0 + i,
      );
    const first = await agent.get('/console/audit?account=acc_bulk');
    expect(rows(first.text)).toHaveLength(50);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/console\/audit\?account=acc_bulk&before=\d+$/);
    const second = await agent.get(next as string);
    expect(rows(second.text)).toHaveLength(10);
    expect(second.text).not.toContain('rel="next"');
  });

  it("lets an admin set a key's own burst limits (audited, shown on the account page); support gets 403; bad numbers 400 by field", async () => {
    const own = generateKey();
    const key = await w.store.createKey(
      { accountId, hash: hashKey(own, PEPPER), prefix: keyPrefix(own), kind: 'payg' },
      T0,
    );
    const path = `/console/accounts/${accountId}/keys/${key.id}/burst`;
    const support = await signIn(w, { name: 'sam', password: SUPPORT_PW });
    expect((await support.agent.post(path, { _csrf: support.csrf, perSecond: '5' })).status).toBe(403);
    expect((await w.store.getKey(key.id))?.burst).toBeUndefined();

    const { agent, csrf } = await signIn(w, { name: 'alex', password: ADMIN_PW });
    for (const [form, field] of [
      [{ perSecond: '0' }, 'Per second'],
      [{ perSecond: '-3' }, 'Per second'],
      [{ perMinute: '2.5' }, 'Per minute'],
      [{ perMinute: 'lots' }, 'Per minute'],
      [{ perSecond: '9999999999' }, 'Per second'],
    ] as const) {
      const bad = await agent.post(path, { _csrf: csrf, ...form });
      expect([form, bad.status]).toEqual([form, 400]);
      expect(bad.text).toContain(field);
      expect((await w.store.getKey(key.id))?.burst).toBeUndefined(); // a refusal changes nothing
    }
    const set = await agent.post(path, { _csrf: csrf, perSecond: '5', perMinute: '' });
    expect(set.status).toBe(303);
    expect((await w.store.getKey(key.id))?.burst).toEqual({ perSecond: 5 });
    expect(auditLines(w.logs).find((l) => l['action'] === 'key.burst_set')).toMatchObject({
      operator: 'alex',
      account: accountId,
      object: key.id,
    });
    const page = await agent.get(`/console/accounts/${accountId}?done=burst`);
    expect(page.text).toContain('The burst limits of the key are saved.');
    expect(page.text).toContain('5 / s, deployment / min');
    // Both empty: back to the deployment's limits.
    expect((await agent.post(path, { _csrf: csrf, perSecond: '', perMinute: '' })).status).toBe(303);
    expect((await w.store.getKey(key.id))?.burst).toBeUndefined();
  });

  it('answers bad input with 400, 403 or 404, never 500', async () => {
    const { agent, csrf } = await signIn(w, { name: 'alex', password: ADMIN_PW });
    const cases: [string, string, Record<string, string> | null, number][] = [
      ['get', '/console/accounts/%ZZ', null, 400],
      ['get', '/console/accounts/acc_%00', null, 400],
      ['get', `/console/accounts/acc_${'a'.repeat(80)}`, null, 404],
      ['get', '/console/accounts/acc_00000000000000000000', null, 404],
      ['get', `/console/search?q=${'x'.repeat(201)}`, null, 400],
      ['get', '/console/search?q=a&q=b', null, 400],
      ['get', '/console/?from=2026-13-45', null, 400],
      ['get', '/console/?from=2020-01-01&to=2026-01-01', null, 400],
      ['get', '/console/no-such-page', null, 404],
      ['get', '/console/audit?account=%ZZ', null, 400],
      ['get', '/console/audit?account=not-an-id', null, 400],
      ['get', `/console/audit?account=acc_${'a'.repeat(80)}`, null, 400],
      ['get', '/console/audit?account=a&account=b', null, 400],
      ['get', '/console/audit?before=0', null, 400],
      ['get', '/console/audit?before=-1', null, 400],
      ['get', `/console/audit?before=${'9'.repeat(40)}`, null, 400],
      ['get', '/console/audit?before=1e3', null, 400],
      ['get', '/console/audit?before=5', null, 200],
      ['post', `/console/accounts/${accountId}/credit`, { _csrf: csrf, amount: 'ten', reason: 'x' }, 400],
      ['post', `/console/accounts/${accountId}/credit`, { _csrf: csrf, amount: '1' }, 400],
      ['post', `/console/accounts/${accountId}/credit`, { amount: '1', reason: 'no token' }, 403],
      ['post', `/console/accounts/${accountId}/plan`, { _csrf: csrf, until: '2027-01-01' }, 404],
      ['post', `/console/accounts/${accountId}/keys/key_%ZZ/revoke`, { _csrf: csrf }, 400],
      ['post', `/console/accounts/${accountId}/keys/key_00000000000000000000/revoke`, { _csrf: csrf }, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const res = method === 'get' ? await agent.get(path) : await agent.post(path, body ?? {});
      expect([path, res.status]).toEqual([path, status]);
    }
    const huge = await agent.post(`/console/accounts/${accountId}/credit`, {
      _csrf: csrf,
      amount: '1',
      reason: 'x'.repeat(20_000),
    });
    expect(huge.status).toBe(413);
    // Signed out: a POST is 401, not a redirect.
    const anon = await new Client(w.app).post(`/console/accounts/${accountId}/suspend`, {});
    expect([401, 403]).toContain(anon.status);
    expect(w.logs.text).not.toContain('internal error');
  });
});

describe('operator console (rule set B)', () => {
  let w: World;
  beforeAll(async () => {
    w = await world(RULE_SET_B);
  });
  afterAll(() => w.close());

  it('finds an account by a whitelisted address and sets the plan; support gets 403 on the plan', async () => {
    const acc = await w.store.createAccount({ email: 'b@example.org' }, T0);
    await w.store.addWhitelist(acc.id, '203.0.113.0/24', T0);
    const support = await signIn(w, { name: 'sam', password: SUPPORT_PW });
    const found = await support.agent.get('/console/search?q=203.0.113.9');
    expect(found.headers['location']).toBe(`/console/accounts/${acc.id}`);
    const page = await support.agent.get(`/console/accounts/${acc.id}`);
    expect(page.text).toContain('203.0.113.0/24');
    const refused = await support.agent.post(`/console/accounts/${acc.id}/plan`, {
      _csrf: support.csrf,
      until: '2027-01-01',
    });
    expect(refused.status).toBe(403);
    const admin = await signIn(w, { name: 'alex', password: ADMIN_PW });
    await admin.agent.post(`/console/accounts/${acc.id}/plan`, { _csrf: admin.csrf, until: '2027-01-01' });

    expect((await w.store.getAccount(acc.id))?.unlimitedUntil).toBe(Date.UTC(2027, 0, 2));
    expect(auditLines(w.logs).find((l) => l['action'] === 'plan.set')).toMatchObject({ operator: 'alex' });
    const pkg = await admin.agent.post(`/console/accounts/${acc.id}/package`, { _csrf: admin.csrf });
    expect(pkg.status).toBe(404);
  });
});
