/**
 * The set-up of test/integration/dashboard (canonical for this folder; ./harness.ts re-exports it): the dashboard
 * app over a real embedded store (temp SQLite), a ManualClock, captured logs and mail; `useDashboards` gives a
 * `harness` whose instances close after the test that started them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { ManualClock } from '../../../gateway/core/clock';
import { RULE_SET_A, RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store/index';
import type { Store } from '../../../gateway/store/ports';
import { createDashboardApp, type DashboardDeps } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import type { Mailer } from '../../../dashboard/mailer';
import { selfClosing } from '../../helpers/fixture';

export const ORIGIN = 'http://dash.test';
export const PEPPER = 'pepper-for-dashboard-tests';
export const SECRET = 'session-secret-for-dashboard-tests-0123456789';
/** 2026-01-31T10:00Z: a package bought now runs to 2026-02-28T10:00Z (D17). */
export const START = Date.parse('2026-01-31T10:00:00.000Z');
export const PASSWORD = 'correct horse battery';

/** Collects everything the logger writes. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/** A mailer that keeps the links it was asked to send. */
export class MailBox implements Mailer {
  readonly sent: { to: string; link: string }[] = [];
  async sendSignInLink(to: string, link: string): Promise<void> {
    this.sent.push({ to, link });
  }
  /** Account e-mails (reset, e-mail change) with their subject and text. */
  readonly accountMails: { to: string; subject: string; text: string; link: string }[] = [];
  async sendAccountLink(to: string, subject: string, text: string, link: string): Promise<void> {
    this.sent.push({ to, link });
    this.accountMails.push({ to, subject, text, link });
  }
  /** Notifications (D30) with their subject and text. */
  readonly notices: { to: string; subject: string; text: string }[] = [];
  async sendNotice(to: string, subject: string, text: string): Promise<void> {
    this.notices.push({ to, subject, text });
  }
  /** The path+query of the newest link to `to`. */
  last(to: string): string {
    const m = [...this.sent].reverse().find((s) => s.to.toLowerCase() === to.toLowerCase());
    if (!m) throw new Error(`no mail to ${to}`);
    const u = new URL(m.link);
    return u.pathname + u.search;
  }
}

export interface Harness {
  app: Express;
  store: Store;
  clock: ManualClock;
  logs: LogCapture;
  mail: MailBox;
  rules: RuleSet;
  /** The store's SQLite file. */
  file: string;
  /** The app's dependencies (to build another app instance on the same store). */
  deps: DashboardDeps;
  /** A restart: close the store, reopen the same SQLite file and build a new app on it (same clock and config). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Start a harness for rule set 'A' or 'B'. */
export async function harness(
  ruleSet: 'A' | 'B',
  opts: { config?: Partial<DashboardConfig>; deps?: Partial<DashboardDeps>; mailer?: Mailer | null } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-dash-'));
  const clock = new ManualClock(START);
  const file = join(dir, 'store.sqlite');
  const store = await createStore({ kind: 'embedded', path: file }, { clock });
  const logs = new LogCapture();
  const logger = pino({ level: 'debug' }, logs);
  const rules = ruleSet === 'A' ? RULE_SET_A : RULE_SET_B;
  const mail = new MailBox();
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: ORIGIN,
    sessionSecret: SECRET,
    payments: { provider: 'test' },
    ...opts.config,
  };
  const mailer = opts.mailer === null ? {} : { mailer: opts.mailer ?? mail };
  const deps: DashboardDeps = {
    store,
    rules,
    pepper: PEPPER,
    clock,
    logger,
    config,
    ...mailer,
    ...opts.deps,
  };
  const h: Harness = {
    app: createDashboardApp(deps),
    store,
    file,
    clock,
    logs,
    mail,
    rules,
    deps,
    async restart() {
      await h.store.close();
      h.store = await createStore({ kind: 'embedded', path: file }, { clock });
      h.deps = { ...h.deps, store: h.store };
      h.app = createDashboardApp(h.deps);
    },
    async close() {
      await h.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/**
 * A cookie-keeping client: sends Origin like a browser would, keeps cookies from Set-Cookie (by name), and reads
 * the CSRF token from pages.
 */
export class Client {
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** Every response body seen, to assert a key never reappears. */
  readonly bodies: string[] = [];
  constructor(
    private readonly app: Express,
    public origin: string | null = ORIGIN,
    /** An agent to connect with, e.g. one with a `localAddress` so the client comes from another address. */
    private readonly agent?: Agent,
  ) {}

  private prepare(test: request.Test, headers: Record<string, string>): request.Test {
    if (this.agent) test.agent(this.agent);
    if (this.cookies.size) test.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    if (this.origin) test.set('Origin', this.origin);
    for (const [k, v] of Object.entries(headers)) test.set(k, v);
    return test;
  }

  private keep(res: request.Response): request.Response {
    const set = res.headers['set-cookie'] as unknown as string[] | undefined;
    for (const c of set ?? []) {
      const [pair] = c.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (/Max-Age=0/.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = res.text ?? '';
    const m = /name="(?:_csrf|csrf-token)" (?:value|content)="([^"]+)"/.exec(text);
    if (m?.[1]) this.csrf = m[1];
    this.bodies.push(text);
    return res;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<request.Response> {
    return this.keep(await this.prepare(request(this.app).get(path), headers));
  }

  /** POST a form; `_csrf` is added unless given (pass `_csrf: ''` to omit it). */
  async form(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<request.Response> {
    const body = { _csrf: this.csrf, ...fields };
    if (body._csrf === '') delete (body as Partial<typeof body>)._csrf;
    return this.keep(await this.prepare(request(this.app).post(path).type('form').send(body), headers));
  }

  /** A JSON API call with the CSRF header (unless `csrf: null`). */
  async api(
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: string,
    body?: unknown,
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<request.Response> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null && method !== 'get') headers['X-CSRF-Token'] = token;
    let t = request(this.app)[method](path);
    if (body !== undefined) t = t.send(body as object);
    return this.keep(await this.prepare(t, headers));
  }
}

/** Sign up (A: name and password; B: through the e-mailed link) and return a signed-in client. */
export async function signedUp(h: Harness, email: string, opts: { verify?: boolean } = {}): Promise<Client> {
  const c = new Client(h.app);
  await c.get('/signup');
  if (h.rules.name === 'A') {
    const r = await c.form('/signup', { email, name: 'Ada Lovelace', password: PASSWORD });
    if (r.status !== 303) throw new Error(`sign-up failed: ${r.status} ${r.text}`);
    // A: the address is verified by the mailed link (issue 15 item 1) unless the test wants it unverified.
    if (opts.verify !== false) {
      await c.get('/'); // follow the redirect like a browser: its pages carry the session's CSRF token
      const mail = h.mail.accountMails
        .filter((m) => m.to === email && m.subject === 'Confirm your e-mail address')
        .at(-1);
      if (!mail) throw new Error(`no verification mail to ${email}`);
      const token = new URL(mail.link).searchParams.get('token') ?? '';
      const v = await c.form('/verify/email', { token });
      if (v.status !== 303) throw new Error(`verification failed: ${v.status} ${v.text}`);
    }
  } else {
    await c.form('/signup', { email });
    await c.get(h.mail.last(email));
    const r = await c.form('/signin/link', {
      token: new URLSearchParams(h.mail.last(email).split('?')[1]).get('token') ?? '',
    });
    if (r.status !== 303) throw new Error(`link sign-in failed: ${r.status} ${r.text}`);
  }
  await c.get('/');
  return c;
}

/** Sign in an existing account again (A: password; B: a new e-mailed link). */
export async function signedIn(h: Harness, email: string): Promise<Client> {
  const c = new Client(h.app);
  await c.get('/signin');
  if (h.rules.name === 'A') {
    const r = await c.form('/signin', { email, password: PASSWORD });
    if (r.status !== 303) throw new Error(`sign-in failed: ${r.status}`);
  } else {
    await c.form('/signin', { email });
    const token = new URLSearchParams(h.mail.last(email).split('?')[1]).get('token') ?? '';
    const r = await c.form('/signin/link', { token });
    if (r.status !== 303) throw new Error(`link sign-in failed: ${r.status}`);
  }
  await c.get('/');
  return c;
}

/** Both rule sets, for describe.each. */
export const BOTH: ['A' | 'B'][] = [['A'], ['B']];
export { RULE_SET_A, RULE_SET_B };

/** `harness` for the enclosing file: every harness it starts in a test (or beforeEach) is closed after that test. */
export function useDashboards(): typeof harness {
  return selfClosing(harness);
}
