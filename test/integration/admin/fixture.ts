/**
 * The set-up of test/integration/admin (canonical for this folder; ./harness.ts re-exports it): the admin app over a
 * real embedded store (temp SQLite file), a manual clock, captured logs; `useAdmin` starts one per test and closes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import type { Express } from 'express';
import { createAdminApp, type AdminDeps } from '../../../gateway/admin/app';
import { ManualClock, utcDay } from '../../../gateway/core/clock';
import type { RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store/index';
import type { AdmissionPlan } from '../../../gateway/store/types';
import type { Store } from '../../../gateway/store/ports';
import { useFixture } from '../../helpers/fixture';

export const TOKEN = 'admin-token-for-tests-0123456789';
export const PEPPER = 'pepper-for-tests';
/** 2026-01-31T10:00Z: a package bought now runs to 2026-02-28T10:00Z (D17, clamped month). */
export const START = Date.parse('2026-01-31T10:00:00.000Z');

/** Collects everything the logger writes. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

export interface Harness {
  app: Express;
  store: Store;
  clock: ManualClock;
  logs: LogCapture;
  rules: RuleSet;
  /** Every response body text seen through `call`, to assert a key never reappears. */
  bodies: string[];
  call(
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<request.Response>;
  close(): Promise<void>;
}

/** Start a harness for a rule set. */
export async function harness(rules: RuleSet, extra: Partial<AdminDeps> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-admin-'));
  const clock = new ManualClock(START);
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  const logs = new LogCapture();
  const logger = pino({ level: 'debug' }, logs);
  const app = createAdminApp({ store, rules, pepper: PEPPER, clock, token: TOKEN, logger, ...extra });
  const bodies: string[] = [];
  return {
    app,
    store,
    clock,
    logs,
    rules,
    bodies,
    async call(method, path, body, headers = {}) {
      let req = request(app)[method](path).set('Authorization', `Bearer ${TOKEN}`);
      for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
      const res = body === undefined ? await req : await req.send(body as object);
      bodies.push(res.text ?? '');
      return res;
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Options of `useAdmin`: extra app dependencies, and `onAccount` to create an account per test and receive it. */
export interface UseAdminOptions {
  extra?: Partial<AdminDeps>;
  onAccount?: (account: { id: string; email: string }) => void;
}

/** A fresh harness per test of the enclosing describe block (beforeEach), closed after it (afterEach). */
export function useAdmin(rules: RuleSet, opts: UseAdminOptions = {}): Harness {
  return useFixture(
    'admin harness',
    async () => {
      const h = await harness(rules, opts.extra);
      if (opts.onAccount) opts.onAccount(await newAccount(h));
      return h;
    },
    (h) => h.close(),
    { scope: 'each' },
  );
}

/** Create an account through the API, valid for the rule set. */
export async function newAccount(
  h: Harness,
  email = `user${Math.random().toString(36).slice(2, 8)}@example.com`,
) {
  const body = h.rules.signupNeedsNameAndPassword
    ? { email, name: 'Ada Lovelace', password: 'correct horse battery' }
    : { email };
  const res = await h.call('post', '/admin/accounts', body);
  if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; email: string };
}

/** Admit one free request through the real store, as the pipeline would: it takes a key slot and counts usage. */
export async function admitRequest(
  h: Harness,
  accountId: string,
  keyId: string,
  address: string,
): Promise<void> {
  const now = h.clock.now();
  const plan: AdmissionPlan = {
    id: `adm_${Math.random().toString(36).slice(2)}`,
    now,
    day: utcDay(now),
    slots: [
      {
        scope: `key:${keyId}`,
        member: address,
        capacity: h.rules.limits.slotsPayg,
        mode: h.rules.slotMode,
        windowMs: h.rules.limits.slotWindowMs,
        refuse: 'key_ip_limit',
      },
    ],
    free: [{ id: `key:${keyId}`, limit: h.rules.limits.freePerDay }],
    overflow: { kind: 'refuse', code: 'quota_exceeded' },
    usage: [`account:${accountId}`, `key:${keyId}`],
    keyId,
  };
  const result = await h.store.admit(plan);
  if (!result.admitted) throw new Error(`admission refused: ${result.code}`);
}

/** Assert a problem+json refusal. */
export function expectProblem(res: request.Response, status: number, code: string, parameter?: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status,
    type: expect.stringContaining('application/problem+json'),
  });
  expect(res.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(res.body.type).toEqual(expect.any(String));
  if (parameter !== undefined) expect(res.body.parameter).toBe(parameter);
}
