/**
 * Account flows in the browser (issue 15 items 1 and 8; Playwright + Debian Chromium, real gateway, backend and SMTP
 * server): sign-up and verification by the link in the mailbox, password reset by the mailed link (A), change of
 * password and e-mail, the JSON export, account deletion and its key refused on the gateway. Mail is read from the
 * real SMTP server and parsed with mailparser. Every page is checked with axe (0 A/AA violations) and no console
 * error is allowed. Screenshots of the new pages (1280 and 375 px) are written to docs/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '../../../gateway/core/paths';
import { axeViolations } from '../../helpers/axe';
import { hasChromium, horizontalOverflow, launchChromium, watchErrors } from '../../helpers/browser';
import type { SmtpCapture } from '../../helpers/smtp-capture';
import { reverseWithKey, useStack, type Stack } from '../harness';

jest.setTimeout(180_000);

const PASSWORD = 'a long browser password';
const available = hasChromium() || process.env['CI'] === 'true';
const maybe = available ? describe : describe.skip;

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const a11y: string[] = [];
const PHONE = { width: 375, height: 812 };

/** axe-check the page (every page a test visits goes through here). */
async function check(page: Page): Promise<void> {
  a11y.push(...(await axeViolations(page)).map((v) => `${page.url()}: ${v}`));
}

/** axe-check and save a documentation screenshot: docs/screenshots/dashboard-<name>.png. */
async function docShot(page: Page, name: string): Promise<void> {
  await check(page);
  const dir = path.join(repoRoot(), 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `dashboard-${name}.png`), fullPage: true });
}

/** The same page at phone width with the same cookies: no overflow, axe-checked, screenshot `<name>-phone`. */
async function phoneShot(
  context: BrowserContext,
  stack: Stack,
  url: string,
  name: string,
): Promise<string[]> {
  const phone = await browser.newContext({ viewport: PHONE, baseURL: stack.dashboardUrl });
  await phone.addCookies(await context.cookies());
  const page = await phone.newPage();
  const watch = watchErrors(page);
  await page.goto(url);
  expect({ url, overflow: await horizontalOverflow(page) }).toEqual({ url, overflow: 0 });
  await docShot(page, `${name}-phone`);
  await phone.close();
  return watch.errors;
}

/** The newest message to `to` with this subject, parsed by mailparser, and the link in its text. */
async function mailTo(
  smtp: SmtpCapture,
  to: string,
  subject: string,
): Promise<{ link: string; text: string }> {
  for (let i = 0; i < 400; i += 1) {
    for (const m of [...smtp.messages].reverse()) {
      if (!m.to.includes(to)) continue;
      const parsed = await simpleParser(m.raw);
      if (parsed.subject !== subject) continue;
      const text = parsed.text ?? '';
      const link = /https?:\/\/\S+/.exec(text)?.[0];
      if (!link) throw new Error(`no link in "${subject}"`);
      return { link, text };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}

/** Create a key on the keys page; its secret from the once-only page. */
async function createKey(page: Page, label: string): Promise<string> {
  await page.goto('/keys');
  await page.fill('#f-label', label);
  await page.click('form[action="/keys"] button[type=submit]');
  await page.waitForSelector('#new-key');
  return page.inputValue('#new-key');
}

/** Download the JSON export from the settings page and parse it. */
async function exportJson(page: Page): Promise<Record<string, unknown>> {
  await page.goto('/settings');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('a[href="/settings/export.json"]'),
  ]);
  expect(download.suggestedFilename()).toMatch(/^geocoding-account-acc_[A-Za-z0-9]+\.json$/);
  return JSON.parse(fs.readFileSync(await download.path(), 'utf8')) as Record<string, unknown>;
}

maybe('account flows, rule set A', () => {
  const stack = useStack('A');

  test('verification, password change and reset, e-mail change, export, deletion; the key then refused', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: stack.dashboardUrl,
    });
    const page = await context.newPage();
    const watch = watchErrors(page);
    const errors: string[] = [];

    // Sign-up: the account may look around but not create a key until the address is verified.
    await page.goto('/signup');
    await page.fill('#f-email', 'amy@example.com');
    await page.fill('#f-name', 'Amy Noether');
    await page.fill('#f-password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Confirm your e-mail address: we sent a link to');
    await docShot(page, 'A-verify-banner');
    errors.push(...(await phoneShot(context, stack, '/', 'A-verify-banner')));
    await page.goto('/keys');
    await page.fill('#f-label', 'web');
    watch.expectStatus('/keys', 403);
    await page.click('form[action="/keys"] button[type=submit]');
    await page.waitForSelector('text=Confirm your e-mail address first');
    await check(page);

    const verify = await mailTo(stack.smtp, 'amy@example.com', 'Confirm your e-mail address');
    expect(verify.text).toContain('expires in 24 hours');
    await page.goto(verify.link);
    await page.waitForSelector('text=is your address');
    await docShot(page, 'A-verify-confirm');
    errors.push(
      ...(await phoneShot(
        context,
        stack,
        new URL(verify.link).pathname + new URL(verify.link).search,
        'A-verify-confirm',
      )),
    );
    await page.click('form[action="/verify/email"] button[type=submit]');
    await page.waitForSelector('text=E-mail address confirmed');
    expect(page.url()).toContain('/settings?done=verified');
    await docShot(page, 'A-settings');
    errors.push(...(await phoneShot(context, stack, '/settings', 'A-settings')));

    const key = await createKey(page, 'web');
    expect((await reverseWithKey(stack.gateway.mainUrl, key)).status).toBe(200);

    // Change of password: the current one is needed.
    await page.goto('/settings');
    await page.fill('form[action="/settings/password"] #f-current', 'not the password');
    await page.fill('form[action="/settings/password"] #f-password', 'the second long password');
    watch.expectStatus('/settings/password', 401);
    await page.click('form[action="/settings/password"] button[type=submit]');
    await page.waitForSelector('#f-current-error');
    await check(page);
    await page.fill('form[action="/settings/password"] #f-current', PASSWORD);
    await page.fill('form[action="/settings/password"] #f-password', 'the second long password');
    await page.click('form[action="/settings/password"] button[type=submit]');
    await page.waitForSelector('text=Password changed');

    // Change of e-mail: confirmed from the new mailbox.
    await page.fill('#f-email', 'amy.new@example.com');
    await page.fill('#f-email_current', 'the second long password');
    await page.click('form[action="/settings/email"] button[type=submit]');
    await page.waitForSelector('text=a confirmation link is on its way');
    const change = await mailTo(stack.smtp, 'amy.new@example.com', 'Confirm your new e-mail address');
    await page.goto(change.link);
    await check(page);
    await page.click('form[action="/settings/email/confirm"] button[type=submit]');
    await page.waitForSelector('text=E-mail address changed.');
    expect(await page.textContent('.who')).toBe('amy.new@example.com');

    // Password reset by the mailed link, signed out.
    await page.click('button:has-text("Sign out")');
    await page.waitForURL('**/signin');
    await page.click('a[href="/password/forgot"]');
    await page.fill('#f-email', 'amy.new@example.com');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    await check(page);
    const reset = await mailTo(stack.smtp, 'amy.new@example.com', 'Reset your password');
    await page.goto(reset.link);
    await check(page);
    await page.fill('#f-password', 'the third long password');
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');

    // The export: the account under its new address, the key without its secret, the ledger.
    const data = await exportJson(page);
    expect(data['account']).toMatchObject({ email: 'amy.new@example.com', name: 'Amy Noether' });
    expect(JSON.stringify(data)).not.toContain(key);
    expect((data['keys'] as unknown[]).length).toBe(1);

    // Deletion: the page offers the export first; the password confirms; the key is refused afterwards.
    await page.goto('/settings/delete');
    expect(await page.locator('main a[href="/settings/export.json"]').count()).toBe(1);
    await docShot(page, 'A-delete');
    errors.push(...(await phoneShot(context, stack, '/settings/delete', 'A-delete')));
    await page.check('#f-confirm');
    await page.fill('#f-current', 'the third long password');
    await page.click('form[action="/settings/delete"] button[type=submit]');
    await page.waitForSelector('text=Your account is deleted');
    await docShot(page, 'A-deleted');
    const refused = await reverseWithKey(stack.gateway.mainUrl, key);
    expect(refused.status).toBe(401);
    expect(refused.body['code']).toBe('key_revoked');
    await page.goto('/settings');
    expect(page.url()).toContain('/signin');
    const [gone] = await stack.gateway.store.listAccounts({
      status: 'deleted',
      sort: 'created',
      order: 'desc',
      limit: 10,
      now: stack.gateway.clock.now(),
    });
    expect(gone).toMatchObject({ name: null, passwordHash: null, balance: 0 });
    expect(gone?.email).toMatch(/^deleted-acc_\w+@deleted\.invalid$/);

    errors.push(...watch.errors);
    await context.close();
    expect(errors).toEqual([]);
    expect(a11y.splice(0)).toEqual([]);
  });
});

maybe('account flows, rule set B', () => {
  const stack = useStack('B');

  test('a link sign-up is verified; e-mail change, export, deletion confirmed by a mailed link; the key then refused', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: stack.dashboardUrl,
    });
    const page = await context.newPage();
    const watch = watchErrors(page);
    const errors: string[] = [];

    await page.goto('/signup');
    await page.fill('#f-email', 'ben@example.com');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    const signup = await mailTo(stack.smtp, 'ben@example.com', 'Your sign-in link');
    await page.goto(signup.link);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');
    // The mailbox is proven by the link: no banner, keys at once.
    expect(await page.locator('text=Confirm your e-mail address').count()).toBe(0);
    const key = await createKey(page, 'backend');
    expect((await reverseWithKey(stack.gateway.mainUrl, key)).status).toBe(200);

    await page.goto('/settings');
    await docShot(page, 'B-settings');
    errors.push(...(await phoneShot(context, stack, '/settings', 'B-settings')));
    await page.fill('#f-email', 'ben.new@example.com');
    await page.click('form[action="/settings/email"] button[type=submit]');
    await page.waitForSelector('text=a confirmation link is on its way');
    const change = await mailTo(stack.smtp, 'ben.new@example.com', 'Confirm your new e-mail address');
    await page.goto(change.link);
    await page.click('form[action="/settings/email/confirm"] button[type=submit]');
    await page.waitForSelector('text=E-mail address changed.');

    const data = await exportJson(page);
    expect(data['account']).toMatchObject({ email: 'ben.new@example.com' });

    await page.goto('/settings/delete');
    await docShot(page, 'B-delete');
    errors.push(...(await phoneShot(context, stack, '/settings/delete', 'B-delete')));
    await page.check('#f-confirm');
    await page.click('form[action="/settings/delete"] button[type=submit]');
    await page.waitForSelector('text=A link to confirm the deletion is on its way');
    await check(page);
    expect((await reverseWithKey(stack.gateway.mainUrl, key)).status).toBe(200); // nothing changed yet
    const confirm = await mailTo(stack.smtp, 'ben.new@example.com', 'Confirm the deletion of your account');
    await page.goto(confirm.link);
    await docShot(page, 'B-delete-confirm');
    errors.push(
      ...(await phoneShot(
        context,
        stack,
        new URL(confirm.link).pathname + new URL(confirm.link).search,
        'B-delete-confirm',
      )),
    );
    await page.click('form[action="/settings/delete/confirm"] button[type=submit]');
    await page.waitForSelector('text=Your account is deleted');
    await check(page);
    await page.goto('/settings');
    expect(page.url()).toContain('/signin'); // signed out by the deletion
    const refused = await reverseWithKey(stack.gateway.mainUrl, key);
    expect(refused.status).toBe(401);

    errors.push(...watch.errors);
    await context.close();
    expect(errors).toEqual([]);
    expect(a11y.splice(0)).toEqual([]);
  });
});
