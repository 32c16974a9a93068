/**
 * Two-factor authentication in Chromium (Debian's, playwright-core) for rule sets A and B, at 1280 and 375 px: the
 * Security page, enrolment by the QR code's secret (codes computed from it with otpauth, as an authenticator app
 * would), the recovery codes shown once, the sign-in's second step after A's password or B's mailed link (a wrong
 * code refused, the right one signs in), the code asked again before a key is created, new recovery codes, and the
 * account deletion confirmed by a recovery code. The dashboard runs over a real embedded store and mails through a
 * real SMTP server (a local capture); its clock is a manual one, moved on by 30 s for each new code. No console
 * errors, no horizontal overflow, no WCAG 2.1 AA violation found by axe-core. Screenshots go to
 * test-artifacts/2fa/ (copied to docs/screenshots/2fa-*.png).
 */
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../../gateway/core/clock';
import { useFixture } from '../../helpers/fixture';
import {
  camera,
  followMailedLink,
  maybe,
  openPage,
  PASSWORD,
  signUp,
  startStoreWalk,
  useBrowser,
  useSmtp,
  type RuleSetName,
  type StoreWalk,
  type WalkPage,
} from './walk-kit';

jest.setTimeout(180_000);

type Walk = StoreWalk<ManualClock>;

const chromium = useBrowser();
const smtp = useSmtp();
/** WCAG 2.1 AA violations of every page shot (axe-core), checked at the end of each walk. */
const { shot, takeViolations } = camera('2fa', { axe: true });

/** The code the authenticator app shows now; the walk's clock then moves on one step, so the next code is new. */
function code(w: Walk, secret: string): string {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  return totp.generate({ timestamp: w.clock.now() });
}
const nextStep = (w: Walk) => w.clock.advance(30_000);

/** The first factor on a fresh page: A's password, or B's mailed link; it lands on the code page. */
async function firstFactor(page: Page, set: RuleSetName, email: string): Promise<void> {
  await page.goto('/signin');
  await page.fill('#f-email', email);
  const seen = smtp.messages.length;
  if (set === 'A') {
    await page.fill('#f-password', PASSWORD);
    await page.click('form[action="/signin"] button[type=submit]');
  } else {
    await page.click('form[action="/signin"] button[type=submit]');
    await followMailedLink(page, smtp, email, seen);
  }
  await page.waitForSelector('h1:has-text("Two-factor authentication")');
}

/** Enrol on the page: the secret from the page, the first code, the recovery codes read off the page. */
async function enrol(
  w: Walk,
  page: Page,
  set: RuleSetName,
  prefix: string,
): Promise<{ secret: string; codes: string[] }> {
  await page.goto('/settings/security');
  await page.click('form[action="/settings/security/setup"] button');
  await page.waitForSelector('img.qr');
  // The QR code is drawn by the server as an SVG data URL: it loads under the CSP, with no outside request.
  const drawn = (await page.evaluate(
    `(() => { const i = document.querySelector('img.qr'); return i.complete && i.naturalWidth > 0; })()`,
  )) as boolean;
  expect(drawn).toBe(true);
  expect(await page.getAttribute('img.qr', 'src')).toMatch(/^data:image\/svg\+xml;base64,/);
  const secret = ((await page.textContent('#totp-secret')) ?? '').replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await shot(page, `${prefix}${set}-enrol`);
  await page.fill('#f-otp', code(w, secret));
  await page.click('form[action="/settings/security/enable"] button');
  await page.waitForSelector('#recovery-codes');
  const codes = (await page.locator('#recovery-codes code').allTextContents()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  await shot(page, `${prefix}${set}-recovery-codes`);
  nextStep(w);
  return { secret, codes };
}

const phoneOf = (w: Walk, from?: BrowserContext): Promise<WalkPage> =>
  openPage(chromium.browser, 'phone', w.url, from);

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  const w = useFixture(
    `2fa walk ${set}`,
    () => startStoreWalk(set, smtp, new ManualClock(Date.parse('2026-11-27T10:00:00Z'))),
    (s) => s.close(),
  );

  maybe(
    'two-factor authentication: enrol, sign in with a code, the code again for a key, deletion; 1280 and 375 px',
    async () => {
      const email = `walk-2fa-${set.toLowerCase()}@example.com`;
      const { ctx: desk, page, watch } = await openPage(chromium.browser, 'desk', w.url);
      await signUp(page, smtp, set, email);

      // The Security page from the settings, off.
      await page.goto('/settings');
      await page.click('a[href="/settings/security"]');
      await page.waitForSelector('text=Two-factor authentication is off');
      await shot(page, `2fa-${set}-security-off`);
      const { secret, codes } = await enrol(w, page, set, '2fa-');
      await page.click('a:has-text("I have stored them safely")');
      await page.waitForSelector('text=Two-factor authentication is on');
      expect(await page.textContent('main')).toContain('10 unused recovery codes');
      await shot(page, `2fa-${set}-security-on`);

      // Signed out, the first factor leads to the code; a wrong code is refused, the right one signs in.
      await page.click('form.signout button');
      await page.waitForSelector('h1:has-text("Sign in")');
      await firstFactor(page, set, email);
      expect(await page.textContent('main')).toContain(email);
      await shot(page, `2fa-${set}-signin-code`);
      watch.expectStatus('/signin/2fa', 401);
      await page.fill('#f-otp', '000000');
      await page.click('form[action="/signin/2fa"] button');
      await page.waitForSelector('#f-otp-error');
      expect(await page.textContent('#f-otp-error')).toContain('That code is not right');
      await shot(page, `2fa-${set}-signin-wrong-code`);
      await page.fill('#f-otp', code(w, secret));
      nextStep(w);
      await page.click('form[action="/signin/2fa"] button');
      await page.waitForSelector('h1:has-text("Overview")');

      // Creating a key asks for the code again, then creates it.
      await page.goto('/keys');
      await page.fill('#f-label', 'server');
      await page.click('form[action="/keys"] button[type=submit]');
      await page.waitForSelector('h1:has-text("Confirm it is you")');
      expect(await w.store.listKeys((await w.store.findAccountByEmail(email))!.id)).toHaveLength(0);
      await shot(page, `2fa-${set}-step-up`);
      await page.fill('#f-otp', code(w, secret));
      nextStep(w);
      await page.click('form[action="/keys"] button[type=submit]');
      await page.waitForSelector('#new-key');
      expect(await page.inputValue('#new-key')).toMatch(/^gk_/);

      // 375 px: the security page, the code page of a new sign-in, the step-up page, new recovery codes.
      w.clock.advance(6 * 60_000); // the confirmation above has run out
      const phone = await phoneOf(w, desk);
      const p = phone.page;
      await p.goto('/settings/security');
      await shot(p, `2fa-${set}-phone-security-on`);
      await p.click('form[action="/settings/security/recovery-codes"] button');
      await p.waitForSelector('h1:has-text("Confirm it is you")');
      await shot(p, `2fa-${set}-phone-step-up`);
      await p.fill('#f-otp', code(w, secret));
      nextStep(w);
      await p.click('form[action="/settings/security/recovery-codes"] button[type=submit]');
      await p.waitForSelector('#recovery-codes');
      const renewed = (await p.locator('#recovery-codes code').allTextContents()).map((c) => c.trim());
      expect(renewed).toHaveLength(10);
      expect(renewed).not.toContain(codes[0]);
      await shot(p, `2fa-${set}-phone-recovery-codes`);
      const fresh = await phoneOf(w);
      await firstFactor(fresh.page, set, email);
      await shot(fresh.page, `2fa-${set}-phone-signin-code`);
      // An old recovery code no longer works; a new one does, once.
      fresh.watch.expectStatus('/signin/2fa', 401);
      await fresh.page.fill('#f-otp', codes[0] as string);
      await fresh.page.click('form[action="/signin/2fa"] button');
      await fresh.page.waitForSelector('#f-otp-error');
      await fresh.page.fill('#f-otp', renewed[0] as string);
      await fresh.page.click('form[action="/signin/2fa"] button');
      await fresh.page.waitForSelector('h1:has-text("Overview")');
      await shot(fresh.page, `2fa-${set}-phone-signed-in`);

      // Deletion asks for the code again; a recovery code confirms it.
      const id = (await w.store.findAccountByEmail(email))!.id;
      w.clock.advance(6 * 60_000); // the confirmation of the new codes has run out
      await p.goto('/settings/delete');
      await p.check('#f-confirm');
      if (set === 'A') await p.fill('#f-current', PASSWORD);
      await p.click('form[action="/settings/delete"] button[type=submit]');
      await p.waitForSelector('h1:has-text("Confirm it is you")');
      await shot(p, `2fa-${set}-phone-delete-step-up`);
      await p.fill('#f-otp', renewed[1] as string);
      await p.click('form[action="/settings/delete"] button[type=submit]');
      if (set === 'A') {
        await p.waitForSelector('h1:has-text("Your account is deleted")');
        expect((await w.store.getAccount(id))?.status).toBe('deleted');
      } else {
        await p.waitForSelector('h1:has-text("Check your mailbox")');
        expect((await w.store.getAccount(id))?.status).toBe('active');
      }
      await shot(p, `2fa-${set}-phone-delete-done`);

      await fresh.ctx.close();
      await phone.ctx.close();
      await desk.close();
      expect([...watch.errors, ...phone.watch.errors, ...fresh.watch.errors]).toEqual([]);
      expect(takeViolations()).toEqual([]);
    },
  );
});
