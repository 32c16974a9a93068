/** Sign-up, sign-in and link pages (rule set A: name and password; B: e-mail and a one-time link). */
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { Brand } from '../brand';
import { html } from './html';
import { field, publicPage } from './layout';

/** Values and errors of a form being shown again. */
export interface FormState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
  /** A message not tied to one field. */
  message?: string;
}

function formError(s: FormState) {
  return s.message ? html`<p class="alert error" role="alert">${s.message}</p>` : '';
}

/** The sign-up page. */
export function signUpPage(brand: Brand, rules: RuleSet, csrf: string, s: FormState = {}): string {
  const v = s.values ?? {};
  const e = s.errors ?? {};
  const fields = rules.signupNeedsNameAndPassword
    ? html`${field({ name: 'email', label: 'E-mail', type: 'email', value: v['email'] ?? '', error: e['email'], autocomplete: 'email', required: true })}
      ${field({ name: 'name', label: 'Name', value: v['name'] ?? '', error: e['name'], autocomplete: 'name', required: true })}
      ${field({ name: 'password', label: 'Password', type: 'password', error: e['password'], autocomplete: 'new-password', hint: 'At least 12 characters.', required: true })}`
    : html`${field({ name: 'email', label: 'E-mail', type: 'email', value: v['email'] ?? '', error: e['email'], autocomplete: 'email', required: true, hint: 'No name, company or card needed. We send you a sign-in link.' })}`;
  return publicPage(
    brand,
    'Create an account',
    html`${formError(s)}
      <form method="post" action="/signup" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${fields}
        <button type="submit">Create account</button>
      </form>
      <p>Already registered? <a href="/signin">Sign in</a>.</p>`,
  );
}

/** The sign-in page. */
export function signInPage(brand: Brand, rules: RuleSet, csrf: string, s: FormState = {}): string {
  const v = s.values ?? {};
  const e = s.errors ?? {};
  const fields = rules.signupNeedsNameAndPassword
    ? html`${field({ name: 'email', label: 'E-mail', type: 'email', value: v['email'] ?? '', error: e['email'], autocomplete: 'username', required: true })}
      ${field({ name: 'password', label: 'Password', type: 'password', error: e['password'], autocomplete: 'current-password', required: true })}`
    : field({
        name: 'email',
        label: 'E-mail',
        type: 'email',
        value: v['email'] ?? '',
        error: e['email'],
        autocomplete: 'email',
        required: true,
        hint: 'We e-mail you a link that signs you in.',
      });
  return publicPage(
    brand,
    'Sign in',
    html`${formError(s)}
      <form method="post" action="/signin" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${fields}
        <button type="submit">
          ${rules.signupNeedsNameAndPassword ? 'Sign in' : 'E-mail me a sign-in link'}
        </button>
      </form>
      ${rules.signupNeedsNameAndPassword ? html`<p><a href="/password/forgot">Forgot your password?</a></p>` : ''}
      <p>New here? <a href="/signup">Create an account</a>.</p>`,
  );
}

/** After a link was requested: the same answer whether or not the address has an account. */
export function linkSentPage(brand: Brand, email: string, minutes: number): string {
  return publicPage(
    brand,
    'Check your mailbox',
    html`<p class="alert ok" role="status">
        If <strong>${email}</strong> can sign in here, a link is on its way. It works once and expires in
        ${minutes} minutes.
      </p>
      <p><a href="/signin">Back to sign-in</a></p>`,
  );
}

/** Rule set A's answer to a sign-up whose address has an account: it names no account (the owner is mailed). */
export function signUpSentPage(brand: Brand, email: string): string {
  return publicPage(
    brand,
    'Check your mailbox',
    html`<p class="alert ok" role="status">
        A message is on its way to <strong>${email}</strong>. Open it to continue.
      </p>
      <p><a href="/signin">Go to sign-in</a></p>`,
  );
}

/** The link's landing page: a button, so mail scanners that open links do not use it up. */
export function linkConfirmPage(brand: Brand, token: string, csrf: string, email: string): string {
  return publicPage(
    brand,
    'Sign in',
    html`<form method="post" action="/signin/link" class="card">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="token" value="${token}" />
      <p>Continue as <strong>${email}</strong>.</p>
      <button type="submit">Sign in</button>
    </form>`,
  );
}

/** A used, expired or tampered link. */
export function linkInvalidPage(brand: Brand): string {
  return publicPage(
    brand,
    'This link no longer works',
    html`<p class="alert error" role="alert">Sign-in links work once and expire after 15 minutes.</p>
      <p><a href="/signin">Ask for a new link</a></p>`,
  );
}
