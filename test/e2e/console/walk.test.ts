/**
 * The operator console walked in Debian's Chromium (playwright-core) against real gateway processes, for both rule
 * sets and both stores (embedded: one process; shared: two processes on one PostgreSQL database and Redis prefix).
 * Operators are created with the CLI; the customer, its key and its refused requests come through the admin API and
 * the main listener. The walk: support signs in, finds the customer by key prefix, sees the refusal's reason, is
 * refused a credit (403); admin signs in, adds credit, revokes the key, which then fails on the other instance
 * within 1 s; the audit log page shows both actions with the operator's name (on the shared store, on the other
 * instance's console too) and the log stream's audit lines name the operators. No console errors; no axe (WCAG A/AA) violations; no horizontal
 * overflow at 375 px; screenshots in docs/screenshots/console-*.png.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from '../../../gateway/core/paths';
import { axeViolations } from '../../helpers/axe';
import { hasChromium, horizontalOverflow, launchChromium, watchErrors } from '../../helpers/browser';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database';
import { deletePrefix, LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';
import { servicesReachable } from '../../integration/shared/fixture';
import { call, startGatewayProc, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

jest.setTimeout(240_000);

const TOKEN = 'console-walk-admin-token-0123456789';
const SUPPORT_PW = 'support walk password';
const ADMIN_PW = 'admin walk password!';
const SHOTS = join(repoRoot(), 'docs', 'screenshots');
const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');

const backend = useBackendProcess();
let dir = '';
useTempDir('geogate-console-walk-', (d) => (dir = d));

let browser: Browser;
beforeAll(async () => {
  if (hasChromium()) browser = await launchChromium();
});
afterAll(async () => browser?.close());

interface Stand {
  instances: { main: string; admin: string; proc: RunningProcess }[];
  close(): Promise<void>;
}

function writeConfig(name: string, policy: 'A' | 'B', store: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `policy: ${policy}`,
      'listen: { host: 127.0.0.1, port: 0 }',
      `admin: { listen: { host: 127.0.0.1, port: 0 }, token: "${TOKEN}" }`,
      `backend: { url: "${backend.url}", timeoutMs: 10000 }`,
      `store: ${store}`,
      'keyPepper: "console-walk-pepper-0123456789"',
      'trustProxy: ["127.0.0.1/32"]',
      'hosts: [{ name: localhost, adapter: native }]',
      'log: { level: info }',
      'drain: { delayMs: 0 }',
    ].join('\n'),
  );
  return file;
}

/** Operators through the CLI, on the config's store. */
function createOperators(file: string): void {
  for (const [name, role, pw] of [
    ['sam', 'support', SUPPORT_PW],
    ['alex', 'admin', ADMIN_PW],
  ] as const) {
    const r = spawnSync(
      process.execPath,
      [CLI, 'operators', 'create', name, '--role', role, '--config', file, '--password-stdin'],
      { input: `${pw}\n`, encoding: 'utf8', timeout: 60_000 },
    );
    expect([r.status, r.stdout.trim(), r.stderr]).toEqual([
      0,
      expect.stringContaining(`operator ${name} (${role}) created`),
      '',
    ]);
  }
}

async function startStand(policy: 'A' | 'B', kind: 'embedded' | 'shared'): Promise<Stand> {
  let db: TestDatabase | null = null;
  const prefix = uniquePrefix('console');
  let store: string;
  if (kind === 'shared') {
    db = await createTestDatabase();
    if (!db) throw new Error('PostgreSQL is not reachable');
    store = `{ kind: shared, postgres: "${db.url}", redis: "${LOCAL_REDIS_URL}", keyPrefix: "${prefix}" }`;
  } else {
    store = `{ kind: embedded, path: "${join(dir, `${policy}.db`)}" }`;
  }
  const file = writeConfig(`${policy}-${kind}`, policy, store);
  createOperators(file);
  const instances: Stand['instances'] = [];
  for (let i = 0; i < (kind === 'shared' ? 2 : 1); i++) {
    const proc = await startGatewayProc(file, 3);
    instances.push({ main: proc.urls[0] as string, admin: proc.urls[2] as string, proc });
  }
  return {
    instances,
    async close() {
      for (const i of instances) await i.proc.stop();
      if (db) {
        await deletePrefix(LOCAL_REDIS_URL, prefix).catch(() => undefined);
        await db.drop();
      }
    },
  };
}

const admin = (s: Stand, method: string, path: string, body?: unknown) =>
  call(s.instances[0]?.admin as string, `/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const reverse = (main: string, key: string, ip: string) =>
  call(main, '/v1/reverse?lat=48.8584&lon=2.2945', { headers: { 'x-api-key': key, 'x-forwarded-for': ip } });

async function signIn(page: Page, base: string, name: string, password: string): Promise<void> {
  await page.goto(`${base}/console/signin`);
  await page.getByLabel('Operator name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${base}/console/`);
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `console-${name}.png`), fullPage: true });
}

const walkable = hasChromium() && servicesReachable().ok;
const cases: ['A' | 'B', 'embedded' | 'shared'][] = [
  ['A', 'embedded'],
  ['B', 'embedded'],
  ['A', 'shared'],
  ['B', 'shared'],
];

(walkable ? describe : describe.skip)('operator console walk (Chromium)', () => {
  it.each(cases)(
    'rule set %s, %s store: roles, search, refusals, credit, revoke, audit',
    async (policy, kind) => {
      const stand = await startStand(policy, kind);
      try {
        const [first, second] = [stand.instances[0], stand.instances[stand.instances.length - 1]];
        if (!first || !second) throw new Error('no instance');
        const consoleBase = first.admin;

        // A customer with a key, served twice and then refused from a third and fourth address.
        const signup =
          policy === 'A'
            ? { email: `walk-${kind}@example.org`, name: 'Walk Customer', password: 'customer password 1' }
            : { email: `walk-${kind}@example.org` };
        const acc = await admin(stand, 'POST', '/accounts', signup);
        expect(acc.status).toBe(201);
        const created = await admin(stand, 'POST', `/accounts/${acc.json.id}/keys`, {});
        expect(created.status).toBe(201);
        const secret = created.json.key as string;
        const prefix = created.json.prefix as string;
        const answers = [];
        for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) {
          answers.push(await reverse(first.main, secret, ip));
        }
        expect(answers.slice(0, 2).map((a) => a.status)).toEqual([200, 200]);
        const refusal = answers[2];
        expect(refusal?.status).toBeGreaterThanOrEqual(400);
        const code = refusal?.json?.code ?? refusal?.json?.error?.code ?? refusal?.json?.status?.message;
        expect(typeof code).toBe('string');

        // Support: find by key prefix, see the refusal's reason with its address; a credit is refused (403).
        const support = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const sp = await support.newPage();
        const sErrors = watchErrors(sp);
        await signIn(sp, consoleBase, 'sam', SUPPORT_PW);
        await sp.getByRole('link', { name: 'Search' }).click();
        await sp.getByLabel(/key prefix/).fill(prefix);
        await sp.getByRole('button', { name: 'Search' }).click();
        await sp.waitForURL(`${consoleBase}/console/accounts/${acc.json.id}`);
        // The refusal log is written within about a second of the refusal.
        const table = sp.getByRole('region', { name: 'Refusals', exact: true });
        for (let i = 0; i < 20 && !(await table.isVisible()); i++) {
          await sp.waitForTimeout(250);
          await sp.reload();
        }
        await expect(table.getByText(code, { exact: true }).first().isVisible()).resolves.toBe(true);
        await expect(table.getByText('198.51.100.3').isVisible()).resolves.toBe(true);
        expect(await sp.getByRole('button', { name: 'Add credit' }).count()).toBe(0);
        sErrors.expectStatus(`/console/accounts/${acc.json.id}/credit`, 403);
        const token = await sp.locator('input[name="_csrf"]').first().inputValue();
        const forbidden = await sp.evaluate(
          async ({ path, token }) => {
            const r = await fetch(path, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ _csrf: token, amount: '5', reason: 'not allowed' }).toString(),
            });
            return r.status;
          },
          { path: `/console/accounts/${acc.json.id}/credit`, token },
        );
        expect(forbidden).toBe(403);
        expect(await axeViolations(sp)).toEqual([]);
        await shot(sp, `${policy}-${kind}-support-account`);
        expect(sErrors.errors).toEqual([]);
        await support.close();

        // Admin: credit with a reason, then revoke the key; it stops on the other instance within 1 s.
        const adminCtx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const ap = await adminCtx.newPage();
        const aErrors = watchErrors(ap);
        await signIn(ap, consoleBase, 'alex', ADMIN_PW);
        expect(await axeViolations(ap)).toEqual([]);
        await shot(ap, `${policy}-${kind}-overview`);
        await ap.goto(`${consoleBase}/console/search?q=${encodeURIComponent(prefix)}`);
        await ap.getByLabel(/^Amount/).fill(policy === 'A' ? '12.50' : '500');
        await ap.getByLabel(/^Reason/).fill('walk: goodwill credit');
        await ap.getByRole('button', { name: 'Add credit' }).click();
        await ap.getByText('Credit added.').waitFor();
        const balance = await ap.locator('[data-field="balance"]').textContent();
        expect(balance).toBe(policy === 'A' ? '12.5000 EUR' : '500 credits');
        expect(await second.main).toBeTruthy();
        expect((await reverse(second.main, secret, '198.51.100.1')).status).toBe(200);
        await ap.getByRole('button', { name: `Revoke ${prefix}…` }).click();
        await ap.getByText('The key is revoked.').waitFor();
        const start = performance.now();
        let stopped = -1;
        while (performance.now() - start < 3_000) {
          const r = await reverse(second.main, secret, '198.51.100.1');
          if (r.status !== 200) {
            stopped = performance.now() - start;
            break;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
        expect(stopped).toBeGreaterThanOrEqual(0);
        expect(stopped).toBeLessThan(1_000);
        await shot(ap, `${policy}-${kind}-admin-account`);

        // The stored audit log shows both actions with the operator's name, newest first; on the shared store the
        // other instance's console (same session cookie: same admin token) shows the same lines.
        await ap.getByRole('link', { name: 'Audit log', exact: true }).first().click();
        await ap.waitForURL(`${consoleBase}/console/audit`);
        const auditRow = (where: Page, action: string) =>
          where.locator(`tr[data-action="${action}"]`).first();
        for (const where of kind === 'shared' ? [consoleBase, second.admin] : [consoleBase]) {
          if (where !== consoleBase) await ap.goto(`${where}/console/audit?account=${acc.json.id}`);
          const revokedRow = auditRow(ap, 'key.revoked');
          const creditRow = auditRow(ap, 'account.topped_up');
          await expect(revokedRow.locator('[data-field="operator"]').textContent()).resolves.toBe('alex');
          await expect(revokedRow.textContent()).resolves.toContain(created.json.id);
          await expect(creditRow.locator('[data-field="operator"]').textContent()).resolves.toBe('alex');
          await expect(creditRow.textContent()).resolves.toContain('reason: walk: goodwill credit');
          const actions = await ap
            .locator('tr[data-action]')
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
          expect(actions.indexOf('key.revoked')).toBeLessThan(actions.indexOf('account.topped_up'));
        }
        if (kind === 'embedded') expect(await axeViolations(ap)).toEqual([]);
        await shot(ap, `${policy}-${kind}-audit`);
        await ap.goto(`${consoleBase}/console/accounts/${acc.json.id}`);
        if (kind === 'embedded') {
          await ap.setViewportSize({ width: 375, height: 800 });
          await ap.reload();
          expect(await horizontalOverflow(ap)).toBeLessThanOrEqual(0);
          await shot(ap, `${policy}-375px-account`);
        }
        expect(aErrors.errors).toEqual([]);
        await adminCtx.close();

        // The audit log (the instance's JSON log lines) names the operators of each action.
        const audit = first.proc
          .output()
          .split('\n')
          .filter((l) => l.includes('"audit":true'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(audit).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ action: 'operator.signed_in', operator: 'sam' }),
            expect.objectContaining({
              action: 'account.topped_up',
              operator: 'alex',
              reason: 'walk: goodwill credit',
            }),
            expect.objectContaining({ action: 'key.revoked', operator: 'alex', object: created.json.id }),
          ]),
        );
        expect(first.proc.output()).not.toContain(secret);
        expect(first.proc.output()).not.toContain(ADMIN_PW);
      } finally {
        await stand.close();
      }
    },
  );
});
