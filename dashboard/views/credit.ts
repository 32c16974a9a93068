/** Credit page: balance, top-up, Unlimited (A: packages; B: plan), and the ledger. */
import { formatMoney } from '../../gateway/policy/ruleset';
import type { KeyJson, LedgerJson } from '../services/views';
import { html, time, type Html } from './html';
import { field, page, type PageContext } from './layout';

/** What the credit page shows. */
export interface CreditView {
  balance: number;
  ledger: LedgerJson[];
  packages: KeyJson[];
  unlimitedUntil: string | null;
  provider: 'test' | 'stripe' | 'none' | 'btcpay';
  /** Whether crypto top-ups (BTCPay Server, D32) are offered beside the card flow. */
  crypto: boolean;
  /** Idempotency key of this rendering of the top-up form (a double submit credits once). */
  topUpId: string;
  form?: { amount?: string; error?: string; message?: string; packageError?: string };
}

const KINDS: Record<string, string> = {
  topup: 'Top-up',
  charge: 'Requests',
  package: 'Unlimited package',
  adjustment: 'Adjustment',
};

/** Money with its unit: "12.5000 EUR" or "1200 credits". */
export function moneyText(ctx: PageContext, units: number): string {
  return ctx.rules.moneyDecimals === 0 ? `${units} credits` : `${formatMoney(ctx.rules, units)} EUR`;
}

function unlimitedSection(ctx: PageContext, v: CreditView): Html {
  if (ctx.rules.unlimited === 'account-plan') {
    return html`<h2>Unlimited plan</h2>
      <p>
        ${v.unlimitedUntil ? html`Your account is on the Unlimited plan until ${time(v.unlimitedUntil)}: nothing is charged past the daily ${ctx.rules.limits.freePerDay} free requests.` : 'Your account is on credits: past the daily free allowance, each request uses one credit. The Unlimited plan is set up by our team on request.'}
      </p>`;
  }
  const rows = v.packages.map(
    (k) =>
      html`<li>
        <a href="/keys/${k.id}">${k.label}</a> (<code>${k.prefix}…</code>):
        ${k.kind === 'unlimited' ? html`valid until ${time(k.packageUntil)}` : html`ended ${time(k.packageUntil)}, now pay-per-use`}
      </li>`,
  );
  return html`<h2>Unlimited packages</h2>
    <p>
      An Unlimited package costs ${moneyText(ctx, ctx.rules.limits.packagePrice)} per month, paid from your
      balance. It comes with its own key (${ctx.rules.limits.slotsUnlimited} IP slots) on which all requests
      are free for one calendar month; afterwards the key keeps working as a pay-per-use key.
    </p>
    ${
      rows.length
        ? html`<ul class="packages">
            ${rows}
          </ul>`
        : ''
    }
    <form method="post" action="/packages" class="card inline">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      ${field({ name: 'label', label: 'Label of the package key (optional)', value: '', error: v.form?.packageError })}
      <button type="submit">Buy Unlimited package</button>
    </form>`;
}

/** What the top-up field's hint says about the ways to pay. */
function topUpHint(v: CreditView): string {
  const card =
    v.provider === 'stripe'
      ? 'You pay by card on Stripe’s secure page.'
      : v.provider === 'test'
        ? 'Test payments complete at once (demo mode).'
        : '';
  const crypto = v.crypto
    ? 'Crypto payments go through our BTCPay Server; credit arrives once the payment settles.'
    : '';
  return [card, crypto].filter((t) => t !== '').join(' ');
}

/** The top-up form, or a note when the gateway has no payment provider (issue 14 item 6). */
function topUpForm(ctx: PageContext, v: CreditView, unit: string): Html | string {
  if (v.provider === 'none' && !v.crypto)
    return html`<p class="alert" role="status" data-payments="none">
      Payments are not configured on this gateway: top-ups are disabled. Ask the operator to add credit.
    </p>`;
  return html`<form method="post" action="/credit/top-up" class="card inline">
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    <input type="hidden" name="topUpId" value="${v.topUpId}" />
    ${field({ name: 'amount', label: `Top up (${unit})`, value: v.form?.amount ?? '', error: v.form?.error, required: true, hint: topUpHint(v) })}
    ${v.provider === 'none' ? '' : html`<button type="submit" name="method" value="card">${v.provider === 'stripe' ? 'Pay by card' : 'Top up (test payment)'}</button>`}
    ${v.crypto ? html`<button type="submit" name="method" value="crypto" data-crypto>Pay in crypto</button>` : ''}
  </form>`;
}

/** The credit page. */
export function creditPage(ctx: PageContext, v: CreditView): string {
  const unit = ctx.rules.moneyDecimals === 0 ? 'credits' : 'EUR';
  const ledger = v.ledger.map(
    (e) =>
      html`<tr>
        <td data-label="When">${time(e.createdAt)}</td>
        <td data-label="What">${KINDS[e.kind] ?? e.kind}</td>
        <td data-label="Amount" class="num">${String(e.amount)}</td>
      </tr>`,
  );
  return page(
    ctx,
    '/credit',
    'Credit',
    html`${v.form?.message ? html`<p class="alert ok" role="status">${v.form.message}</p>` : ''}
      <p class="balance">Balance: <strong data-balance>${moneyText(ctx, v.balance)}</strong></p>
      ${topUpForm(ctx, v, unit)} ${unlimitedSection(ctx, v)}
      <h2>Ledger</h2>
      ${
        ledger.length
          ? html`<div class="table-wrap">
              <table class="ledger">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>What</th>
                    <th>Amount (${unit})</th>
                  </tr>
                </thead>
                <tbody>
                  ${ledger}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">No entries yet.</p>`
      }`,
  );
}
