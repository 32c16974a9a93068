/** Billing page (issue 15 item 3, D31): the billing details printed on receipts, and the list of receipts. */
import type { BillingDetails, Receipt } from '../../gateway/store/receipts';
import { COUNTRY_CODES } from '../../gateway/store/invoices';
import { countryName } from '../invoice-doc';
import type { ReceiptDoc } from '../receipt-doc';
import { dataTable, html, time, type Html } from './html';
import { field, page, type PageContext } from './layout';

/** What the billing page shows. */
export interface BillingView {
  billing: BillingDetails;
  receipts: { receipt: Receipt; doc: ReceiptDoc }[];
  /**
   * Where this page of receipts sits: `after`, the receipt number it continues after (null: the newest page);
   * `older`, the number to continue after for the next older page (null: this page holds the oldest).
   */
  page?: { after: string | null; older: string | null };
  form?: {
    values?: { billingName?: string; billingAddress?: string; vatId?: string; country?: string };
    error?: { field: string; message: string };
    message?: string;
  };
}

function addressField(value: string, error: string | undefined): Html {
  const id = 'f-billingAddress';
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">Address</label>
    <textarea
      id="${id}"
      name="billingAddress"
      rows="4"
      autocomplete="street-address"
      ${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}
    >
${value}</textarea>
    <p class="hint">Up to 6 lines: street, postcode and town, country.</p>
    ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
  </div>`;
}

/** Every country by its English name, for the billing country's select. */
const COUNTRIES = COUNTRY_CODES.map((code) => ({ code, name: countryName(code) })).sort((a, b) =>
  a.name.localeCompare(b.name, 'en'),
);

function countryField(value: string, error: string | undefined): Html {
  const id = 'f-country';
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">Country</label>
    <select
      id="${id}"
      name="country"
      autocomplete="country"
      ${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}
    >
      <option value="">Not given</option>
      ${COUNTRIES.map(
        (c) => html`<option value="${c.code}" ${c.code === value ? html`selected` : ''}>${c.name}</option>`,
      )}
    </select>
    <p class="hint">Decides the VAT on your invoices.</p>
    ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
  </div>`;
}

function detailsForm(ctx: PageContext, v: BillingView): Html {
  const err = (name: string): string | undefined =>
    v.form?.error?.field === name ? v.form.error.message : undefined;
  const val = v.form?.values ?? {
    billingName: v.billing.name ?? '',
    billingAddress: v.billing.address ?? '',
    vatId: v.billing.vatId ?? '',
    country: v.billing.country ?? '',
  };
  return html`<section class="card" aria-labelledby="details-title">
    <h2 id="details-title">Billing details</h2>
    <p class="hint">
      Printed on every new receipt and invoice. Those already issued keep the details they were issued with.
    </p>
    <form method="post" action="/billing" novalidate>
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      ${field({ name: 'billingName', label: 'Billing name (person or company)', value: val.billingName ?? '', error: err('billingName'), autocomplete: 'organization' })}
      ${addressField(val.billingAddress ?? '', err('billingAddress'))}
      ${countryField(val.country ?? '', err('country'))}
      ${field({ name: 'vatId', label: 'VAT id (optional)', value: val.vatId ?? '', error: err('vatId'), hint: 'With its country code, e.g. DE123456789. A business in another EU country with a valid id pays no VAT (reverse charge).' })}
      <button type="submit">Save billing details</button>
    </form>
  </section>`;
}

function receiptsTable(v: BillingView): Html {
  const rows = v.receipts.map(
    ({ receipt: r, doc }) =>
      html`<tr data-receipt="${r.number}">
        <td data-label="Number"><a href="/receipts/${r.number}">${r.number}</a></td>
        <td data-label="Date">${time(doc.issuedAt)}</td>
        <td data-label="Item">${doc.rows[0]?.value ?? ''}</td>
        <td data-label="Method" data-method="${r.method}">${doc.rows[1]?.value ?? ''}</td>
        <td data-label="Total" class="num">${doc.total.value}</td>
        <td data-label="PDF">
          <a href="/receipts/${r.number}.pdf" download aria-label="PDF of receipt ${r.number}">PDF</a>
        </td>
      </tr>`,
  );
  return dataTable(
    'receipts',
    ['Number', 'Date', 'Item', 'Method', { text: 'Total', num: true }, 'PDF'],
    rows,
    v.page?.after ? 'No older receipts.' : 'No receipts yet: every top-up and package purchase gets one.',
  );
}

/** Links between pages of receipts: back to the newest, and on to older ones when there are more. */
function receiptsNav(v: BillingView): Html | '' {
  const p = v.page;
  if (!p || (p.after === null && p.older === null)) return '';
  return html`<nav class="pager" aria-label="Receipt pages">
    ${p.after !== null ? html`<a href="/billing">Newest receipts</a>` : ''}
    ${p.older !== null ? html`<a href="/billing?before=${p.older}" rel="next">Older receipts</a>` : ''}
  </nav>`;
}

/** The billing page. */
export function billingPage(ctx: PageContext, v: BillingView): string {
  return page(
    ctx,
    '/billing',
    'Billing',
    html`<link rel="stylesheet" href="/static/billing.css" />
      ${v.form?.message ? html`<p class="alert ok" role="status">${v.form.message}</p>` : ''}
      ${detailsForm(ctx, v)}
      <h2>Receipts</h2>
      ${receiptsTable(v)} ${receiptsNav(v)}`,
  );
}

/** One receipt, print-friendly (billing.css hides the page frame when printed). */
export function receiptPage(ctx: PageContext, doc: ReceiptDoc): string {
  return page(
    ctx,
    '/billing',
    doc.title,
    html`<link rel="stylesheet" href="/static/billing.css" />
      <p class="receipt-actions">
        <a href="/billing">All receipts</a> ·
        <a href="/receipts/${doc.number}.pdf" download>Download PDF</a> · Print with your browser for paper.
      </p>
      <article class="receipt card" aria-labelledby="receipt-seller">
        <p class="receipt-seller" id="receipt-seller">${doc.seller}</p>
        ${
          (doc.sellerLines ?? []).length > 0
            ? html`<p class="receipt-seller-lines" data-seller>
                ${(doc.sellerLines ?? []).map((l, i) => html`${i > 0 ? html`<br />` : ''}${l}`)}
              </p>`
            : ''
        }
        <dl class="facts">
          <dt>Number</dt>
          <dd data-receipt-number>${doc.number}</dd>
          <dt>Date</dt>
          <dd>${doc.date}</dd>
          <dt>Billed to</dt>
          <dd data-billed-to>${doc.billedTo.map((l, i) => html`${i > 0 ? html`<br />` : ''}${l}`)}</dd>
          ${doc.rows.map(
            (r) =>
              html`<dt>${r.label}</dt>
                <dd data-row="${r.label}">${r.value}</dd>`,
          )}
          <dt>${doc.total.label}</dt>
          <dd data-receipt-total><strong>${doc.total.value}</strong></dd>
        </dl>
        <p class="hint">${doc.note}</p>
      </article>`,
  );
}
