/** Account settings and recovery pages (issue 15 item 1): password reset, change of password and e-mail, export. */
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { FormState } from './auth';
import { html } from './html';
import type { Brand } from '../brand';
import { field, page, publicPage, type PageContext } from './layout';

function formMessage(s: FormState) {
  return s.message ? html`<p class="alert error" role="alert">${s.message}</p>` : '';
}

/** "Forgot your password?": asks for the e-mail address (rule set A). */
export function forgotPage(brand: Brand, csrf: string, s: FormState = {}): string {
  return publicPage(
    brand,
    'Reset your password',
    html`${formMessage(s)}
      <form method="post" action="/password/forgot" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${field({ name: 'email', label: 'E-mail', type: 'email', value: s.values?.['email'] ?? '', error: s.errors?.['email'], autocomplete: 'email', required: true, hint: 'We e-mail you a link to choose a new password.' })}
        <button type="submit">E-mail me a reset link</button>
      </form>
      <p><a href="/signin">Back to sign-in</a></p>`,
  );
}

/** After a reset was asked for: the same answer whether or not the address has an account. */
export function resetSentPage(brand: Brand, email: string, minutes: number): string {
  return publicPage(
    brand,
    'Check your mailbox',
    html`<p class="alert ok" role="status">
        If <strong>${email}</strong> has an account here, a link to choose a new password is on its way. It
        works once and expires in ${minutes} minutes.
      </p>
      <p><a href="/signin">Back to sign-in</a></p>`,
  );
}

/** The reset link's landing page: the new password (a form, so mail scanners opening the link do not use it). */
export function resetPage(
  brand: Brand,
  token: string,
  csrf: string,
  email: string,
  s: FormState = {},
): string {
  return publicPage(
    brand,
    'Choose a new password',
    html`${formMessage(s)}
      <form method="post" action="/password/reset" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="token" value="${token}" />
        <p>For <strong>${email}</strong>.</p>
        ${field({ name: 'password', label: 'New password', type: 'password', error: s.errors?.['password'], autocomplete: 'new-password', hint: 'At least 12 characters. Every other session is signed out.', required: true })}
        <button type="submit">Set the new password</button>
      </form>`,
  );
}

/** A used, expired, tampered or superseded account link. */
export function accountLinkInvalidPage(brand: Brand, what: string, again: string): string {
  return publicPage(
    brand,
    'This link no longer works',
    html`<p class="alert error" role="alert">
        ${what} links work once, expire, and stop working when the password or e-mail changes.
      </p>
      <p><a href="${again}">Ask for a new link</a></p>`,
  );
}

/** The e-mail confirmation link's landing page. */
export function emailConfirmPage(brand: Brand, token: string, csrf: string, email: string): string {
  return publicPage(
    brand,
    'Confirm your new e-mail address',
    html`<form method="post" action="/settings/email/confirm" class="card">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="token" value="${token}" />
      <p>Use <strong>${email}</strong> for this account from now on.</p>
      <button type="submit">Confirm</button>
    </form>`,
  );
}

/** What the settings page shows after a form. */
export interface SettingsForms {
  password?: FormState;
  email?: FormState;
  message?: string;
}

/** The settings page: password (A), e-mail, data export. */
export function settingsPage(ctx: PageContext, rules: RuleSet, forms: SettingsForms = {}): string {
  const pw = forms.password ?? {};
  const em = forms.email ?? {};
  const passwords = rules.signupNeedsNameAndPassword;
  return page(
    ctx,
    '/settings',
    'Settings',
    html`${forms.message ? html`<p class="alert ok" role="status">${forms.message}</p>` : ''}
      ${
        passwords
          ? html`<h2>Password</h2>
              ${formMessage(pw)}
              <form method="post" action="/settings/password" class="card">
                <input type="hidden" name="_csrf" value="${ctx.csrf}" />
                ${field({ name: 'current', label: 'Current password', type: 'password', error: pw.errors?.['current'], autocomplete: 'current-password', required: true })}
                ${field({ name: 'password', label: 'New password', type: 'password', error: pw.errors?.['password'], autocomplete: 'new-password', hint: 'At least 12 characters. Your other sessions are signed out.', required: true })}
                <button type="submit">Change password</button>
              </form>`
          : ''
      }
      <h2>E-mail address</h2>
      <p>
        Now: <strong>${ctx.email}</strong>
        (${ctx.unverified ? 'not confirmed yet' : 'confirmed'}). A new address must be confirmed from its
        mailbox.
      </p>
      ${formMessage(em)}
      <form method="post" action="/settings/email" class="card">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        ${field({ name: 'email', label: 'New e-mail address', type: 'email', value: em.values?.['email'] ?? '', error: em.errors?.['email'], autocomplete: 'email', required: true })}
        ${passwords ? field({ name: 'email_current', label: 'Current password', type: 'password', error: em.errors?.['email_current'], autocomplete: 'current-password', required: true }) : ''}
        <button type="submit">Send a confirmation link</button>
      </form>
      <h2>Two-factor authentication</h2>
      <p>
        <a href="/settings/security">Security settings</a>: a code from an authenticator app at sign-in and
        before sensitive changes.
      </p>
      <h2>Your data</h2>
      <p>
        <a href="/settings/export.json" download>Download your data (JSON)</a>: the account, your keys (never
        their secrets), whitelisted addresses, usage of the last 90 days and the ledger.
      </p>
      <h2>Delete your account</h2>
      <p>
        Your keys stop working and the balance is forfeited; the ledger is kept for accounting.
        <a href="/settings/delete">Delete your account…</a>
      </p>`,
  );
}
