/** Usage page: today against the free allowance, the reset time, and a 30-day chart (inline SVG). */
import type { DayCounts, UsageReport } from '../services/usage';
import type { KeyJson } from '../services/views';
import { dataTable, html, time, type Html } from './html';
import { page, type PageContext } from './layout';
import { RANGE_PRESETS } from '../services/usage-range';

const W = 600;
const H = 200;
const PAD = 24;

/** Stacked bars per day: free, billed, refused. */
export function usageChart(days: DayCounts[]): Html {
  const max = Math.max(1, ...days.map((d) => d.free + d.billed + d.refused));
  const slot = (W - PAD) / days.length;
  const bar = Math.max(2, slot * 0.7);
  const scale = (n: number) => (n / max) * (H - PAD);
  const bars = days.map((d, i) => {
    const x = PAD + i * slot;
    let y = H - PAD;
    const parts = (['free', 'billed', 'refused'] as const).map((kind) => {
      const h = scale(d[kind]);
      y -= h;
      return h > 0
        ? html`<rect
            class="${kind}"
            x="${x.toFixed(1)}"
            y="${y.toFixed(1)}"
            width="${bar.toFixed(1)}"
            height="${h.toFixed(1)}"
          ></rect>`
        : '';
    });
    return html`<g data-day="${d.day}"
      ><title>${d.day}: ${d.free} free, ${d.billed} billed, ${d.refused} refused</title>${parts}<rect
        class="hit"
        x="${x.toFixed(1)}"
        y="0"
        width="${slot.toFixed(1)}"
        height="${H - PAD}"
      ></rect
    ></g>`;
  });
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  // Axis labels are HTML, not SVG text: the SVG stretches to the width (preserveAspectRatio none), which shrank
  // and distorted its text to ~6 px on phones; HTML text keeps the page's font size (issue 15 item 7).
  return html`<figure class="chart">
    <div class="ticks y"><span data-tick="max">${max} requests</span></div>
    <svg
      viewBox="0 0 ${W} ${H}"
      role="img"
      aria-label="Requests per day, last ${days.length} days (free, billed, refused)"
      preserveAspectRatio="none"
    >
      <line class="axis" x1="${PAD}" y1="${H - PAD}" x2="${W}" y2="${H - PAD}"></line>
      ${bars}
    </svg>
    <div class="ticks x"><span data-tick="first">${first}</span><span data-tick="last">${last}</span></div>
    <figcaption>
      <span class="legend free"></span> free <span class="legend billed"></span> billed
      <span class="legend refused"></span> refused
    </figcaption>
  </figure>`;
}

/** The usage page for the account or one key. */
export function usagePage(ctx: PageContext, r: UsageReport, keys: KeyJson[]): string {
  const options = [
    html`<option value="account" ${r.subject === 'account' ? html` selected` : ''}>Whole account</option>`,
    ...keys.map(
      (k) =>
        html`<option value="${k.id}" ${r.subject === k.id ? html` selected` : ''}>
          ${k.label ?? k.prefix} (${k.prefix}…)
        </option>`,
    ),
  ];
  const perKey = ctx.rules.keyedAllowance === 'key-and-network';
  const allowanceText = perKey
    ? r.subject === 'account'
      ? `Each key has ${r.allowance} free requests per day (shared with the network it is used from).`
      : `This key has ${r.allowance} free requests per day (shared with the network it is used from).`
    : `Your account has ${r.allowance} free requests per day, shared by its keys and whitelisted addresses.`;
  const showMeter = !perKey || r.subject !== 'account';
  const used = Math.min(r.today.free, r.allowance);
  const rows = [...r.days].reverse().map(
    (d) =>
      html`<tr>
        <td>${d.day}</td>
        <td class="num">${d.free}</td>
        <td class="num">${d.billed}</td>
        <td class="num">${d.refused}</td>
      </tr>`,
  );
  const range = r.range ?? {
    kind: '30',
    from: r.days[0]?.day ?? '',
    to: r.days[r.days.length - 1]?.day ?? '',
  };
  const rangeOptions = [
    ...RANGE_PRESETS.map(
      (n) => html`<option value="${n}" ${range.kind === n ? html` selected` : ''}>Last ${n} days</option>`,
    ),
    html`<option value="custom" ${range.kind === 'custom' ? html` selected` : ''}>Custom days</option>`,
  ];
  // The default range (30 days) is left out of the CSV link.
  const rangeQuery =
    range.kind === '30'
      ? ''
      : `&range=${encodeURIComponent(range.kind)}${range.kind === 'custom' ? `&from=${range.from}&to=${range.to}` : ''}`;
  const query = `subject=${encodeURIComponent(r.subject)}${rangeQuery}`;
  return page(
    ctx,
    '/usage',
    'Usage',
    html`<form method="get" action="/usage" class="usage-filter">
        <div class="field">
          <label for="f-subject">Requests of</label>
          <select id="f-subject" name="subject">
            ${options}
          </select>
        </div>
        <div class="field">
          <label for="f-range">Days</label>
          <select id="f-range" name="range">
            ${rangeOptions}
          </select>
        </div>
        <div class="field custom-day">
          <label for="f-from">From (UTC)</label>
          <input id="f-from" name="from" type="date" value="${range.from}" />
        </div>
        <div class="field custom-day">
          <label for="f-to">To (UTC)</label>
          <input id="f-to" name="to" type="date" value="${range.to}" />
        </div>
        <button type="submit">Show</button>
      </form>
      <p class="hint">
        The custom days apply when "Custom days" is chosen. Requests are counted per key and account, not per
        host, so there is no split by host.
      </p>
      <section class="today card">
        <h2>Today (UTC)</h2>
        <p>${allowanceText}</p>
        ${
          showMeter
            ? html`<p class="big">
                  <strong data-today-free>${r.today.free}</strong> of ${r.allowance} free requests used
                </p>
                <meter
                  min="0"
                  max="${r.allowance}"
                  value="${used}"
                  aria-label="Free requests used today"
                ></meter>`
            : html`<p class="big"><strong data-today-free>${r.today.free}</strong> free requests today</p>`
        }
        <p>Billed today: ${r.today.billed} · Refused today: ${r.today.refused}</p>
        <p>
          The counters reset at ${time(r.resetAt)}
          <span class="hint">(00:00 UTC, <span data-local-of="${r.resetAt}"></span> your time)</span>.
        </p>
      </section>
      <h2>
        ${range.kind === 'custom' ? html`${range.from} to ${range.to}` : html`Last ${r.days.length} days`}
      </h2>
      ${usageChart(r.days)}
      <p>
        <a class="button secondary small" href="/usage.csv?${query}" download data-csv>Download as CSV</a>
      </p>
      <details>
        <summary>As a table</summary>
        ${dataTable('usage', ['Day (UTC)', 'Free', 'Billed', 'Refused'], rows, 'No days yet.')}
      </details>`,
  );
}
