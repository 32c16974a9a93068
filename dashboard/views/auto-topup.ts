/** The auto top-up page (/credit/auto-top-up): the saved card, threshold and amount, and the charges made. */
import type { AutoTopUpAttempt, AutoTopUpSettings } from '../../gateway/store/auto-topup';
import { failureReason } from '../payments/auto-topup-notice';
import { iso } from '../services/views';
import { balanceText, priceText } from './credit';
import { dataTable, html, time, type Html } from './html';
import { field, page, type PageContext } from './layout';

/** What the page shows. */
export interface AutoTopUpView {
  /** False when the gateway takes no card payments through Stripe (or auto top-up is off in its config). */
  available: boolean;
  settings: AutoTopUpSettings;
  attempts: AutoTopUpAttempt[];
  balance: number;
  /** Failures in a row that turn it off. */
  maxFailures: number;
  /** Idempotency id of this rendering of the "save a card" form. */
  formId: string;
  form?: {
    threshold?: string;
    amount?: string;
    enabled?: boolean;
    errors?: Partial<Record<'threshold' | 'amount' | 'enabled', string>>;
    message?: string;
  };
}

/** A stored amount as the form shows it again: "5" or "12.5" (A), "1000" (B). */
function formAmount(ctx: PageContext, units: number | null): string {
  if (units === null) return '';
  if (ctx.rules.moneyDecimals === 0) return String(units);
  const per = 10 ** ctx.rules.moneyDecimals;
  const frac = String(units % per)
    .padStart(ctx.rules.moneyDecimals, '0')
    .replace(/0+$/, '');
  return frac ? `${Math.floor(units / per)}.${frac}` : String(Math.floor(units / per));
}

function status(ctx: PageContext, v: AutoTopUpView): Html {
  const s = v.settings;
  if (s.enabled && s.paymentMethodId && s.threshold !== null && s.amount !== null) {
    return html`<p class="alert ok" role="status" data-auto-topup="on">
      Auto top-up is on: when your balance falls below <strong>${priceText(ctx, s.threshold)}</strong>, your
      card is charged <strong>${priceText(ctx, s.amount)}</strong>, once each time it falls below.
    </p>`;
  }
  if (s.disabledReason === 'failures') {
    return html`<p class="alert error" role="alert" data-auto-topup="off-failures">
      Auto top-up was turned off after ${s.failures} failed charges in a row. Save a card again and turn it
      on.
    </p>`;
  }
  const missing = [
    s.paymentMethodId ? '' : 'save a card',
    s.threshold === null || s.amount === null ? 'choose a threshold and an amount' : '',
    s.enabled ? '' : 'turn it on',
  ].filter((t) => t !== '');
  return html`<p class="alert" role="status" data-auto-topup="off">
    Auto top-up is off. To use it: ${missing.join(', ')}.
  </p>`;
}

function cardCard(ctx: PageContext, v: AutoTopUpView): Html {
  const s = v.settings;
  return html`<section class="card" aria-labelledby="card-title">
    <h2 id="card-title">Card</h2>
    ${
      s.paymentMethodId
        ? html`<p data-card>Saved card: <strong>${s.cardLabel ?? 'card'}</strong></p>`
        : html`<p data-card="none">No card saved yet.</p>`
    }
    <p class="hint">
      The card is saved with Stripe on its secure page; we keep only Stripe’s reference to it. It is charged
      only by auto top-up, without you being present.
    </p>
    <div class="inline">
      <form method="post" action="/credit/auto-top-up/card">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <input type="hidden" name="formId" value="${v.formId}" />
        <button type="submit">${s.paymentMethodId ? 'Save another card' : 'Save a card'}</button>
      </form>
      ${
        s.paymentMethodId
          ? html`<form method="post" action="/credit/auto-top-up/card/remove">
              <input type="hidden" name="_csrf" value="${ctx.csrf}" />
              <button type="submit" class="danger">Remove card</button>
            </form>`
          : ''
      }
    </div>
  </section>`;
}

function settingsForm(ctx: PageContext, v: AutoTopUpView): Html {
  const s = v.settings;
  const f = v.form ?? {};
  const unit = ctx.rules.moneyDecimals === 0 ? 'credits' : 'EUR';
  const enabled = f.enabled ?? s.enabled;
  return html`<form method="post" action="/credit/auto-top-up" class="card" aria-labelledby="settings-title">
    <h2 id="settings-title">Threshold and amount</h2>
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    <div class="field check${f.errors?.enabled ? ' invalid' : ''}">
      <input id="f-enabled" name="enabled" type="checkbox" value="on" ${enabled ? html`checked` : ''} />
      <label for="f-enabled">Top up automatically</label>
      ${f.errors?.enabled ? html`<p class="error" role="alert">${f.errors.enabled}</p>` : ''}
    </div>
    ${field({ name: 'threshold', label: `When the balance falls below (${unit})`, value: f.threshold ?? formAmount(ctx, s.threshold), error: f.errors?.threshold, required: true })}
    ${field({ name: 'amount', label: `Top up by (${unit})`, value: f.amount ?? formAmount(ctx, s.amount), error: f.errors?.amount, required: true, hint: `One charge each time the balance falls below the threshold; the next one after it is back at the threshold. After ${v.maxFailures} failed charges in a row it turns off.` })}
    <button type="submit">Save</button>
  </form>`;
}

function resultText(a: AutoTopUpAttempt): string {
  if (a.status === 'succeeded') return 'Charged';
  if (a.status === 'pending') return 'In progress';
  return `Failed: ${failureReason(a.error ?? 'payment_failed')}`;
}

/** The auto top-up page. */
export function autoTopUpPage(ctx: PageContext, v: AutoTopUpView): string {
  if (!v.available) {
    return page(
      ctx,
      '/credit',
      'Auto top-up',
      html`<p class="alert" role="status" data-auto-topup="unavailable">
        Auto top-up needs card payments through Stripe, which this gateway does not take. Top up on the
        <a href="/credit">Credit</a> page.
      </p>`,
    );
  }
  const rows = v.attempts.map(
    (a) =>
      html`<tr data-attempt="${a.status}">
        <td data-label="When">${time(iso(a.createdAt))}</td>
        <td data-label="Amount" class="num">${priceText(ctx, a.units)}</td>
        <td data-label="Result">${resultText(a)}</td>
      </tr>`,
  );
  return page(
    ctx,
    '/credit',
    'Auto top-up',
    html`${v.form?.message ? html`<p class="alert ok" role="status" data-message>${v.form.message}</p>` : ''}
      <p class="balance">Balance: <strong data-balance>${balanceText(ctx, v.balance)}</strong></p>
      ${status(ctx, v)} ${cardCard(ctx, v)} ${settingsForm(ctx, v)}
      <h2>Automatic charges</h2>
      <p class="hint">Receipts of successful charges are on the <a href="/billing">Billing</a> page.</p>
      ${dataTable('ledger auto-topups', ['When', { text: 'Amount', num: true }, 'Result'], rows, 'No automatic charges yet.')}`,
  );
}
