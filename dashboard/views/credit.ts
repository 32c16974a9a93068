/** Credit page: balance, prices, top-up, Unlimited (A: packages; B: plan), and the ledger. */
import { HOUR_MS } from '../../gateway/store/charge-hour';
import type { LedgerEntry } from '../../gateway/store/types';
import { formatBalance, formatExact, hasSubMinorRemainder, moneyUnit } from '../money';
import type { KeyJson } from '../services/views';
import { iso } from '../services/views';
import { dataTable, html, time, type Html } from './html';
import { field, page, type PageContext } from './layout';
import { offerText, planSection, type PlanSectionView } from './unlimited';

/** What the credit page shows. */
export interface CreditView {
  balance: number;
  ledger: LedgerEntry[];
  /** Key id → what a charge row calls the key (its label, else its prefix). */
  keyNames: Record<string, string>;
  packages: KeyJson[];
  unlimitedUntil: string | null;
  provider: 'test' | 'stripe' | 'none' | 'btcpay';
  /** Whether crypto top-ups (BTCPay Server, D32) are offered beside the card flow. */
  crypto: boolean;
  /** The price of one credit when credits are bought by card (rule set B with Stripe), e.g. "€0.01". */
  cardCreditPrice?: string;
  /** B: the Unlimited plan's configured price and period, e.g. { price: "€199.00", period: "month" }. */
  planPrice?: { price: string; period: 'month' | 'year' };
  /** The price of one credit when credits are bought in crypto (rule set B with BTCPay Server), e.g. "€0.01". */
  cryptoCreditPrice?: string;
  /** Idempotency key of this rendering of the top-up form (a double submit credits once). */
  topUpId: string;
  form?: { amount?: string; error?: string; message?: string; packageError?: string; planError?: string };
  /** B: the Unlimited plan, its offer and the periods bought (views/unlimited.ts). */
  plan?: PlanSectionView;
}

const KINDS: Record<string, string> = {
  topup: 'Top-up',
  charge: 'Requests',
  package: 'Unlimited package',
  adjustment: 'Adjustment',
};

const COUNT = new Intl.NumberFormat('en');
const hh = (ms: number) => String(new Date(ms).getUTCHours()).padStart(2, '0');

/**
 * What a charge row stands for (D35): "key prod, 14:00–15:00 UTC, 12,345 requests"; "whitelisted addresses, …" when
 * no key was used; a per-request charge recorded before D35 has no hour ("key prod, 1 request").
 */
export function chargeText(e: LedgerEntry, keyNames: Record<string, string>): string {
  const who = e.keyId === null ? 'whitelisted addresses' : `key ${keyNames[e.keyId] ?? e.keyId}`;
  const hour = e.hourStart === null ? '' : `, ${hh(e.hourStart)}:00–${hh(e.hourStart + HOUR_MS)}:00 UTC`;
  const n = e.count;
  return n === null
    ? `${who}${hour}`
    : `${who}${hour}, ${COUNT.format(n)} ${n === 1 ? 'request' : 'requests'}`;
}

/** A balance for people: "€12.34" (to the cent, cut toward zero) or "1,200 credits". */
export function balanceText(ctx: PageContext, units: number): string {
  return formatBalance(units, moneyUnit(ctx.rules));
}

/** A price or ledger amount, exact: "€0.0001", "€50.00", "1 credit". */
export function priceText(ctx: PageContext, units: number): string {
  return formatExact(units, moneyUnit(ctx.rules));
}

/** The rule set's prices (issue 15 item 3): beyond the allowance, Unlimited, and credits by card. */
function pricesSection(ctx: PageContext, v: CreditView): Html {
  const { limits } = ctx.rules;
  const perKey = ctx.rules.keyedAllowance === 'key-and-network';
  const free = new Intl.NumberFormat('en').format(limits.freePerDay);
  return html`<section class="card prices" aria-labelledby="prices-title">
    <h2 id="prices-title">Prices</h2>
    <dl class="facts">
      <dt>Free</dt>
      <dd>
        ${free} requests a day
        ${perKey ? 'per key (shared with the network it is used from)' : 'per account (keys and whitelist together)'}
      </dd>
      <dt>Beyond the free allowance</dt>
      <dd data-price="request">
        <strong>${priceText(ctx, limits.pricePerRequest)}</strong> per request, from your balance
      </dd>
      ${
        ctx.rules.unlimited === 'package-key'
          ? html`<dt>Unlimited package</dt>
              <dd data-price="package">
                <strong>${priceText(ctx, limits.packagePrice)}</strong> per calendar month, paid from your
                balance: its own key (${limits.slotsUnlimited} IP slots) with every request free
              </dd>`
          : v.plan?.offer
            ? html`<dt>Unlimited plan</dt>
                <dd data-price="plan">
                  <strong>${offerText(v.plan.offer)}</strong>: nothing charged past the free allowance (from
                  at most ${limits.unlimitedAccountAddresses} addresses per rolling 24 hours);
                  <a href="#unlimited">bought and renewed below</a>
                </dd>`
            : v.planPrice
              ? html`<dt>Unlimited plan</dt>
                  <dd data-price="plan">
                    <strong>${v.planPrice.price}</strong> per ${v.planPrice.period}: nothing charged past the
                    free allowance (from at most ${limits.unlimitedAccountAddresses} addresses per rolling 24
                    hours); set up by our team
                  </dd>`
              : html`<dt>Unlimited plan</dt>
                  <dd data-price="plan">
                    Nothing charged past the free allowance (from at most ${limits.unlimitedAccountAddresses}
                    addresses per rolling 24 hours); priced on request and set up by our team
                  </dd>`
      }
      ${
        v.cardCreditPrice
          ? html`<dt>Credits by card</dt>
              <dd data-price="credit"><strong>${v.cardCreditPrice}</strong> per credit</dd>`
          : ''
      }
      ${
        v.cryptoCreditPrice
          ? html`<dt>Credits in crypto</dt>
              <dd data-price="crypto-credit">
                <strong>${v.cryptoCreditPrice}</strong> per credit, paid in crypto
              </dd>`
          : ''
      }
    </dl>
  </section>`;
}

function unlimitedSection(ctx: PageContext, v: CreditView): Html {
  if (ctx.rules.unlimited === 'account-plan') {
    if (v.plan) return planSection(ctx, { ...v.plan, error: v.form?.planError });
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
      An Unlimited package costs ${priceText(ctx, ctx.rules.limits.packagePrice)} per month, paid from your
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
      <button type="submit">Buy Unlimited package (${priceText(ctx, ctx.rules.limits.packagePrice)})</button>
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
        <td data-label="When">${time(iso(e.createdAt))}</td>
        <td data-label="What">
          ${e.kind === 'charge' ? chargeText(e, v.keyNames) : (KINDS[e.kind] ?? e.kind)}
        </td>
        <td data-label="Amount" class="num">${e.amount > 0 ? '+' : ''}${priceText(ctx, e.amount)}</td>
      </tr>`,
  );
  const exact = hasSubMinorRemainder(v.balance, moneyUnit(ctx.rules))
    ? html` <span class="hint" data-balance-exact>(exactly ${priceText(ctx, v.balance)})</span>`
    : '';
  return page(
    ctx,
    '/credit',
    'Credit',
    html`${v.form?.message ? html`<p class="alert ok" role="status">${v.form.message}</p>` : ''}
      <p class="balance">Balance: <strong data-balance>${balanceText(ctx, v.balance)}</strong>${exact}</p>
      ${topUpForm(ctx, v, unit)}
      ${v.provider === 'stripe' ? html`<p class="hint" data-auto-topup-link><a href="/credit/auto-top-up">Auto top-up</a>: save a card and top up automatically when the balance falls below a threshold.</p>` : ''}
      ${pricesSection(ctx, v)} ${unlimitedSection(ctx, v)}
      <h2>Ledger</h2>
      <p class="hint">Receipts of top-ups and packages are on the <a href="/billing">Billing</a> page.</p>
      ${dataTable('ledger', ['When', 'What', { text: 'Amount', num: true }], ledger, 'No entries yet.')}`,
  );
}
