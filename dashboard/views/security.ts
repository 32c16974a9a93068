/** The pages of two-factor authentication: the Security settings, enrolment, recovery codes, and the code prompts. */
import type { Brand } from '../brand';
import { html, time, type Html } from './html';
import { field, page, publicPage, type PageContext } from './layout';

/** The Security page's state. */
export interface SecurityView {
  /** When the second factor was turned on (ISO), or null when it is off. */
  enabledAt: string | null;
  /** Unused recovery codes (when on). */
  codesLeft: number;
  message?: string;
  error?: string;
}

const csrfInput = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;

function alerts(v: { message?: string | undefined; error?: string | undefined }): Html {
  return html`${v.message ? html`<p class="alert ok" role="status">${v.message}</p>` : ''}
  ${v.error ? html`<p class="alert error" role="alert">${v.error}</p>` : ''}`;
}

/** /settings/security: whether the second factor is on, and what can be done about it. */
export function securityPage(ctx: PageContext, v: SecurityView): string {
  const body = v.enabledAt
    ? html`<p class="alert ok" role="status">
          Two-factor authentication is <strong>on</strong> since ${time(v.enabledAt)}.
        </p>
        <p>
          Signing in, deleting the account, changing the password or e-mail address, and creating, buying or
          rotating keys ask for a code from your authenticator app.
        </p>
        <h2>Recovery codes</h2>
        <p>
          <strong>${v.codesLeft}</strong> unused recovery code${v.codesLeft === 1 ? '' : 's'} left. Each works
          once, in place of a code from the app, if you lose your phone. New codes void the old ones.
        </p>
        <form method="post" action="/settings/security/recovery-codes">
          ${csrfInput(ctx)}
          <button type="submit" class="secondary">Make new recovery codes</button>
        </form>
        <h2>Turn it off</h2>
        <form method="post" action="/settings/security/disable">
          ${csrfInput(ctx)}
          <button type="submit" class="danger">Turn two-factor authentication off</button>
        </form>`
    : html`<p>
          Two-factor authentication is <strong>off</strong>. Turn it on to ask for a code from an
          authenticator app (any app that supports TOTP, such as Aegis, Google Authenticator, 1Password or
          Bitwarden) when you sign in and before sensitive changes.
          ${ctx.rules.signupNeedsNameAndPassword ? 'Your password' : 'The link we e-mail you'} stays the first
          factor.
        </p>
        <form method="post" action="/settings/security/setup">
          ${csrfInput(ctx)}
          <button type="submit">Set up two-factor authentication</button>
        </form>`;
  return page(
    ctx,
    '/settings',
    'Security',
    html`${alerts(v)}
      <h2>Two-factor authentication</h2>
      ${body}
      <p><a href="/settings">Back to settings</a></p>`,
  );
}

/** Enrolment: the QR code and the secret to scan or type, and the first code to confirm. */
export function enrolPage(
  ctx: PageContext,
  v: { qr: string; secret: string; error?: string | undefined },
): string {
  const grouped = v.secret.match(/.{1,4}/g)?.join(' ') ?? v.secret;
  return page(
    ctx,
    '/settings',
    'Set up two-factor authentication',
    html`<ol class="steps">
        <li>
          <p>Scan this QR code with your authenticator app:</p>
          <img class="qr" src="${v.qr}" width="200" height="200" alt="QR code of the two-factor secret" />
          <p>
            Or type the key by hand (time-based, 6 digits, 30 seconds):
            <code class="secret-text" id="totp-secret">${grouped}</code>
          </p>
        </li>
        <li>
          <p>Enter the 6-digit code the app shows now:</p>
          <form method="post" action="/settings/security/enable" class="card">
            ${csrfInput(ctx)}
            ${field({ name: 'otp', label: 'Code from the app', error: v.error, autocomplete: 'one-time-code', required: true, hint: 'Two-factor authentication is on once this code is accepted.' })}
            <button type="submit">Turn it on</button>
          </form>
        </li>
      </ol>
      <p><a href="/settings/security">Cancel</a></p>`,
  );
}

/** The recovery codes, shown this once. */
export function recoveryCodesPage(ctx: PageContext, codes: string[], first: boolean): string {
  return page(
    ctx,
    '/settings',
    first ? 'Two-factor authentication is on' : 'New recovery codes',
    html`<div class="secret card">
      <p class="alert warn" role="alert">
        <strong>Save these recovery codes now.</strong> They are shown only this once. Each works once, in
        place of a code from your app, if you lose it.${first ? '' : ' The old codes no longer work.'}
      </p>
      <ul class="recovery-codes" id="recovery-codes">
        ${codes.map((c) => html`<li><code>${c}</code></li>`)}
      </ul>
      <p><a class="button" href="/settings/security">I have stored them safely</a></p>
    </div>`,
  );
}

/** /signin/2fa: the first factor passed; the code. */
export function secondStepPage(brand: Brand, csrf: string, email: string, error?: string): string {
  return publicPage(
    brand,
    'Two-factor authentication',
    html`<p>Signing in as <strong>${email}</strong>.</p>
      <form method="post" action="/signin/2fa" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${field({ name: 'otp', label: 'Code from your authenticator app', error, autocomplete: 'one-time-code', required: true, hint: 'Lost your phone? Enter one of your recovery codes instead.' })}
        <button type="submit">Sign in</button>
      </form>
      <p><a href="/signin">Start again</a></p>`,
  );
}

/** The half signed-in state is gone (expired, used, or the password or e-mail changed). */
export function secondStepExpiredPage(brand: Brand): string {
  return publicPage(
    brand,
    'Sign in again',
    html`<p class="alert error" role="alert">This sign-in has expired or was already used. Sign in again.</p>
      <p><a class="button" href="/signin">Sign in</a></p>`,
  );
}

/** Step-up: a sensitive change asks for the code, then carries the form's fields on to where it was going. */
export function stepUpPage(
  ctx: PageContext,
  action: string,
  fields: [string, string][],
  error?: string,
): string {
  return page(
    ctx,
    '/settings',
    'Confirm it is you',
    html`<p>This change needs a code from your authenticator app (or a recovery code).</p>
      <form method="post" action="${action}" class="card">
        ${csrfInput(ctx)}
        ${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
        ${field({ name: 'otp', label: 'Code', error, autocomplete: 'one-time-code', required: true, hint: 'One code counts for 5 minutes of changes in this session.' })}
        <button type="submit">Confirm and continue</button>
      </form>
      <p><a href="/">Cancel</a></p>`,
  );
}
