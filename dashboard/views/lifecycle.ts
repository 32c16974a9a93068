/** Pages of e-mail verification and account deletion (issue 15 item 1). */
import type { Brand } from '../brand';
import type { FormState } from './auth';
import { html } from './html';
import { field, page, publicPage, type PageContext } from './layout';

function formMessage(s: FormState) {
  return s.message ? html`<p class="alert error" role="alert">${s.message}</p>` : '';
}

/** After "send it again". */
export function verificationSentPage(ctx: PageContext, email: string): string {
  return page(
    ctx,
    '/settings',
    'Check your mailbox',
    html`<p class="alert ok" role="status">
        A new link to confirm <strong>${email}</strong> is on its way. It works once and expires in 24 hours;
        earlier links still work until then.
      </p>
      <p><a href="/">Back to the overview</a></p>`,
  );
}

/** The verification link's landing page (a form, so mail scanners opening the link do not use it). */
export function verifyConfirmPage(brand: Brand, token: string, csrf: string, email: string): string {
  return publicPage(
    brand,
    'Confirm your e-mail address',
    html`<form method="post" action="/verify/email" class="card">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="token" value="${token}" />
      <p>Confirm that <strong>${email}</strong> is your address.</p>
      <button type="submit">Confirm my e-mail address</button>
    </form>`,
  );
}

/** After the link was used by a visitor who is not signed in. */
export function verifiedPage(brand: Brand, email: string): string {
  return publicPage(
    brand,
    'E-mail address confirmed',
    html`<p class="alert ok" role="status"><strong>${email}</strong> is confirmed.</p>
      <p><a href="/signin">Sign in</a> to create keys and top up.</p>`,
  );
}

/** The deletion page: what goes, what stays, the export first, then the confirmation. */
export function deletePage(ctx: PageContext, passwords: boolean, minutes: number, s: FormState = {}): string {
  const confirmError = s.errors?.['confirm'];
  return page(
    ctx,
    '/settings',
    'Delete your account',
    html`${formMessage(s)}
      <h2>First, take your data with you</h2>
      <p>
        <a href="/settings/export.json" download>Download your data (JSON)</a>: the account, your keys (never
        their secrets), whitelisted addresses, usage of the last 90 days and the ledger.
      </p>
      <h2>What deleting does</h2>
      <ul>
        <li>Every key stops working at once; whitelisted addresses and IP slots are removed.</li>
        <li>You are signed out everywhere.</li>
        <li>Your e-mail address, name and password are erased. The address can be used for a new account.</li>
        <li>The remaining balance is forfeited: it is not refunded.</li>
        <li>
          The ledger (top-ups, charges) and receipts are kept under the account's number, as accounting law
          requires.
        </li>
      </ul>
      <form method="post" action="/settings/delete" class="card">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <div class="field check${confirmError ? ' invalid' : ''}">
          <input
            id="f-confirm"
            name="confirm"
            type="checkbox"
            value="yes"
            required
            ${confirmError ? html` aria-invalid="true" aria-describedby="f-confirm-error"` : ''}
          />
          <label for="f-confirm">I understand that this cannot be undone</label>
          ${confirmError ? html`<p class="error" id="f-confirm-error" role="alert">${confirmError}</p>` : ''}
        </div>
        ${
          passwords
            ? field({
                name: 'current',
                label: 'Current password',
                type: 'password',
                error: s.errors?.['current'],
                autocomplete: 'current-password',
                required: true,
              })
            : html`<p class="hint">
                We e-mail you a link to confirm; it works once and expires in ${minutes} minutes.
              </p>`
        }
        <button type="submit" class="danger">
          ${passwords ? 'Delete my account' : 'E-mail me a confirmation link'}
        </button>
      </form>
      <p><a href="/settings">Back to settings</a></p>`,
  );
}

/** B: the confirmation link is on its way. */
export function deletionLinkSentPage(ctx: PageContext, email: string, minutes: number): string {
  return page(
    ctx,
    '/settings',
    'Check your mailbox',
    html`<p class="alert ok" role="status">
        A link to confirm the deletion is on its way to <strong>${email}</strong>. It works once and expires
        in ${minutes} minutes. Nothing changes until you open it and confirm.
      </p>
      <p><a href="/settings">Back to settings</a></p>`,
  );
}

/** B: the deletion link's landing page. */
export function deleteConfirmPage(brand: Brand, token: string, csrf: string, email: string): string {
  return publicPage(
    brand,
    'Delete your account for good?',
    html`<form method="post" action="/settings/delete/confirm" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="token" value="${token}" />
        <p>
          The account of <strong>${email}</strong>: its keys stop working, its balance is forfeited, and it
          cannot be undone.
        </p>
        <button type="submit" class="danger">Delete my account</button>
      </form>
      <p><a href="/settings">Keep my account</a></p>`,
  );
}

/** After the deletion. */
export function deletedPage(brand: Brand): string {
  return publicPage(
    brand,
    'Your account is deleted',
    html`<p class="alert ok" role="status">
        Your account is deleted and you are signed out. Its keys no longer work.
      </p>
      <p><a href="/signup">Create a new account</a></p>`,
  );
}
