/**
 * The key page's parts for test keys (D40), rotation with an overlap and the end date (D39): the "Test key" badge,
 * what a test key answers, the rotate form and the end-date form.
 */
import type { KeyJson } from '../services/views';
import { html, time, type Html } from './html';
import type { PageContext } from './layout';

/** D40: the badge every place that shows a test key carries. */
export function modeBadge(k: Pick<KeyJson, 'mode'>): Html {
  return k.mode === 'test'
    ? html` <span class="badge test" title="Test key: never counted">Test key</span>`
    : html``;
}

/** The create form's test-key choice. */
export function testKeyChoice(): Html {
  return html`<div class="field check">
    <input id="f-test" name="test" type="checkbox" value="on" aria-describedby="f-test-hint" />
    <label for="f-test">Test key</label>
    <p class="hint" id="f-test-hint">
      Starts with <code>gk_test_</code>: canned answers and rehearsed errors, never counted or charged.
    </p>
  </div>`;
}

/** What a test key answers and how to ask for each scenario (shown with a new test key and on its page). */
export function testKeyHelp(): Html {
  return html`<section class="card" aria-labelledby="test-key-title">
    <h2 id="test-key-title">This is a test key</h2>
    <p>
      It works on every host of this service and answers in that host's format, but it never reaches our data,
      is never counted and never costs anything. Choose the answer with the <code>scenario</code> query
      parameter or the <code>X-Test-Scenario</code> header:
    </p>
    <ul>
      <li><code>success</code> (the default): a canned result</li>
      <li><code>401</code>: an invalid key</li>
      <li><code>402</code>: no credits left</li>
      <li><code>403</code>: all IP slots of the key are in use (<code>key_ip_limit</code>)</li>
      <li><code>429</code>: the daily free allowance is used up</li>
    </ul>
    <p>Use it to rehearse your error handling; use a live key for real lookups.</p>
  </section>`;
}

/** Overlaps offered for a rotation (seconds → label). */
const OVERLAPS: [number, string][] = [
  [0, 'None: the old secret stops now'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
];

/** The rotate form (active keys): a new secret, everything else kept. */
export function rotateSection(ctx: PageContext, k: KeyJson, error?: string): Html {
  if (k.status !== 'active') return html``;
  const until = k.previousSecretUntil;
  return html`<section class="card" id="rotate" aria-labelledby="rotate-title">
    <h2 id="rotate-title">Rotate</h2>
    <p>
      Get a new secret for this key. Its label, IP slots, restrictions, usage and package stay; only the
      secret changes. Choose how long the current secret keeps working while you deploy the new one.
    </p>
    ${until ? html`<p class="alert warn" role="status">The previous secret works until ${time(until)}.</p>` : ''}
    ${error ? html`<p class="alert error" role="alert">${error}</p>` : ''}
    <form method="post" action="/keys/${k.id}/rotate" class="inline">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <div class="field">
        <label for="f-overlap">The current secret keeps working</label>
        <select id="f-overlap" name="overlap">
          ${OVERLAPS.map(([s, label]) => html`<option value="${String(s)}" ${s === 86_400 ? html`selected` : ''}>${label}</option>`)}
        </select>
      </div>
      <button type="submit">Rotate key</button>
    </form>
  </section>`;
}

/** The end-date form: a day (the key stops at its end, 24:00 UTC) or none. */
export function expirySection(ctx: PageContext, k: KeyJson, error?: string): Html {
  if (k.status !== 'active') return html``;
  const day = k.expiresAt ? new Date(Date.parse(k.expiresAt) - 1).toISOString().slice(0, 10) : '';
  return html`<section class="card" id="expiry" aria-labelledby="expiry-title">
    <h2 id="expiry-title">End date</h2>
    <p>
      ${k.expiresAt ? html`This key stops working at ${time(k.expiresAt)}.` : 'This key has no end date.'}
      After its end date a key is refused like a revoked one.
    </p>
    <form method="post" action="/keys/${k.id}/expiry" class="inline">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <div class="field${error ? ' invalid' : ''}">
        <label for="f-expires">Last day (UTC)</label>
        <input
          id="f-expires"
          name="expires"
          type="date"
          value="${day}"
          ${error ? html`aria-invalid="true" aria-describedby="f-expires-error"` : ''}
        />
        ${error ? html`<p class="error" id="f-expires-error" role="alert">${error}</p>` : ''}
      </div>
      <button type="submit">Save end date</button>
      ${k.expiresAt ? html`<button type="submit" name="never" value="1" class="secondary">Remove end date</button>` : ''}
    </form>
  </section>`;
}
