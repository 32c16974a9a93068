/** Rule set B's Unlimited plan on the credit page: its state, the buy / renew form and the periods bought. */
import type { PlanPeriod } from '../../gateway/store/plan-periods';
import { formatExact } from '../money';
import type { PlanOffer } from '../payments/unlimited';
import type { PlanView } from '../services/unlimited';
import { iso } from '../services/views';
import { dataTable, html, time, type Html } from './html';
import type { PageContext } from './layout';

/** The plan section's data: the plan, this rendering's form id, and a refusal to show. */
export type PlanSectionView = PlanView & { formId: string; error?: string | undefined };

/** Minor units of the offer's currency as people read them: 19900 EUR → "€199.00". */
export function offerPrice(minor: number, currency: string): string {
  return formatExact(minor, { kind: 'currency', code: currency, unitsPerMajor: 100 });
}

/** "€199.00 for 30 days". */
export function offerText(offer: PlanOffer): string {
  return `${offerPrice(offer.minor, offer.currency)} for ${offer.days} ${offer.days === 1 ? 'day' : 'days'}`;
}

const METHOD: Record<string, string> = { card: 'Card', crypto: 'Crypto', test: 'Test payment' };

function periodRow(p: PlanPeriod): Html {
  return html`<tr data-period="${p.id}">
    <td data-label="Bought">${time(iso(p.createdAt))}</td>
    <td data-label="From">${time(iso(p.startsAt))}</td>
    <td data-label="Until">${time(iso(p.endsAt))}</td>
    <td data-label="Paid" class="num">
      ${p.paid ? offerPrice(p.paid.minor, p.paid.currency) : '—'} (${METHOD[p.method] ?? p.method})
    </td>
    <td data-label="Receipt"><a href="/receipts/${p.receiptNumber}">${p.receiptNumber}</a></td>
  </tr>`;
}

/** The buy / renew form: one button per way to pay. */
function planForm(ctx: PageContext, v: PlanSectionView, offer: PlanOffer): Html | string {
  if (v.card === null && !v.crypto)
    return html`<p class="alert" role="status" data-plan-payments="none">
      Payments are not configured on this gateway: ask the operator to set up the plan.
    </p>`;
  if (v.farAhead)
    return html`<p class="hint" data-plan-ahead>
      Your plan is paid more than a year ahead; you can renew again within a year of its end.
    </p>`;
  const verb = v.until ? 'Renew' : 'Buy';
  const err = v.error;
  return html`<form method="post" action="/unlimited" class="card plan-buy${err ? ' invalid' : ''}">
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    <input type="hidden" name="planId" value="${v.formId}" />
    <p id="plan-next">
      ${verb} ${offer.days} days for
      <strong data-plan-price>${offerPrice(offer.minor, offer.currency)}</strong>: the plan will run until
      ${time(iso(v.nextEnd))}.
    </p>
    <div class="actions">
      ${
        v.card === null
          ? ''
          : html`<button type="submit" name="method" value="card" aria-describedby="plan-next" data-plan-card>
              ${v.card === 'stripe' ? `${verb}: pay by card` : `${verb} (test payment)`}
            </button>`
      }
      ${
        v.crypto
          ? html`<button
              type="submit"
              name="method"
              value="crypto"
              aria-describedby="plan-next"
              data-plan-crypto
            >
              ${verb}: pay in crypto
            </button>`
          : ''
      }
    </div>
  </form>`;
}

/** The credit page's Unlimited plan section (rule set B). */
export function planSection(ctx: PageContext, v: PlanSectionView): Html {
  const free = ctx.rules.limits.freePerDay;
  const state = v.until
    ? html`<p data-plan="unlimited">
        Your account is on the Unlimited plan until <strong>${time(iso(v.until))}</strong>: nothing is charged
        past the daily ${free} free requests.
      </p>`
    : html`<p data-plan="credits">
        Your account is on credits: past the daily free allowance, each request uses one credit.
      </p>`;
  if (!v.offer)
    return html`<h2 id="unlimited">Unlimited plan</h2>
      ${state}
      <p>The Unlimited plan is set up by our team on request.</p>`;
  const rows = v.periods.map(periodRow);
  return html`<h2 id="unlimited">Unlimited plan</h2>
    ${state}
    <p>
      ${offerText(v.offer)}: all requests of the account (keys and whitelist, from at most
      ${ctx.rules.limits.unlimitedAccountAddresses} addresses per rolling 24 hours) with nothing charged. It
      is not renewed automatically: a renewal adds ${v.offer.days} days to the plan's end, and an unrenewed
      plan ends at the end of its last period (you are reminded a week before, see Notifications). Each
      payment has its receipt.
    </p>
    ${v.error ? html`<p class="alert error" id="plan-error" role="alert">${v.error}</p>` : ''}
    ${planForm(ctx, v, v.offer)}
    ${
      rows.length
        ? html`<h3>Periods bought</h3>
            ${dataTable('plan-periods', ['Bought', 'From', 'Until', { text: 'Paid', num: true }, 'Receipt'], rows, '')}`
        : ''
    }`;
}
