/**
 * Keys pages: list and create, the once-only display of a new key, a key's IP slots, its restrictions with the live
 * tester (issue 15 item 4), revocation.
 */
import type { KeyDetail } from '../services/keys';
import type { KeyJson } from '../services/views';
import { dataTable, html, time, type Html } from './html';
import { expirySection, modeBadge, rotateSection, testKeyChoice, testKeyHelp } from './key-secrets';
import { field, page, type PageContext } from './layout';
import { lastUsedCell } from './last-used';
import type { LastUsed } from '../services/last-used';

const KIND: Record<string, string> = { payg: 'Pay-per-use', unlimited: 'Unlimited' };

function status(k: KeyJson): Html {
  return html`<span class="badge ${k.status}">${k.status === 'active' ? 'Active' : 'Revoked'}</span>`;
}

/** How to rotate a key (spec 5.7) and where keys must not go. */
export function rotationHelp(ctx: PageContext): Html {
  return html`<details class="help" open>
    <summary>Rotating a key</summary>
    <ol>
      <li>
        Open the key and choose <strong>Rotate</strong>, with how long its current secret keeps working (up to
        7 days).
      </li>
      <li>Deploy the new secret to your servers; the key keeps its label, slots, restrictions and usage.</li>
      <li>When the time you chose ends, the old secret stops working everywhere within a second (401).</li>
    </ol>
    <p>
      Keep keys on your servers where you can. A key in browser JavaScript or an app is visible to anyone who
      looks: restrict it first to your web sites or addresses (on the key's page), so a copy is refused
      elsewhere. Each key can also be used from ${ctx.rules.limits.slotsPayg} addresses per 24 hours (its IP
      slots), so a leaked key is of little use to a
      finder.${
        ctx.rules.whitelist ? ' Browser callers can call without a key, counted on their own address.' : ''
      }
    </p>
  </details>`;
}

/** The keys list with the create form. */
export function keysPage(
  ctx: PageContext,
  keys: KeyJson[],
  form: { label?: string; error?: string } = {},
  used: ReadonlyMap<string, LastUsed> = new Map(),
): string {
  const rows = keys.map(
    (k) =>
      html`<tr>
        <td data-label="Label"><a href="/keys/${k.id}">${k.label ?? '(no label)'}</a>${modeBadge(k)}</td>
        <td data-label="Prefix"><code>${k.prefix}…</code></td>
        <td data-label="Kind">
          ${KIND[k.kind]}${k.packageUntil && k.kind === 'unlimited' ? html` until ${time(k.packageUntil)}` : ''}
        </td>
        <td data-label="Status">${status(k)}</td>
        <td data-label="Created">${time(k.createdAt)}</td>
        <td data-label="Last used">${lastUsedCell(used.get(k.id))}</td>
        <td>
          ${k.status === 'active' ? html`<a class="button small danger" href="/keys/${k.id}/revoke">Revoke</a>` : ''}
        </td>
      </tr>`,
  );
  return page(
    ctx,
    '/keys',
    'API keys',
    html`<form method="post" action="/keys" class="card inline">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        ${field({ name: 'label', label: 'Label', value: form.label ?? '', error: form.error, hint: 'Say where the key is used, e.g. "production server".', required: ctx.rules.keyLabelRequired })}
        ${testKeyChoice()}
        <button type="submit">Create key</button>
      </form>
      ${dataTable('keys', ['Label', 'Prefix', 'Kind', 'Status', 'Created', 'Last used', ''], rows, 'No keys yet.')}
      ${rotationHelp(ctx)}`,
  );
}

/** The only page that ever shows a key (D14). */
export function keyCreatedPage(
  ctx: PageContext,
  key: KeyJson,
  secret: string,
  googleKey: string,
  extra?: Html,
): string {
  return page(
    ctx,
    '/keys',
    'Your new key',
    html`<div class="secret card">
        <p class="alert warn" role="alert">
          <strong>Copy this key now.</strong> It is shown only this once; we store only a hash of it and
          cannot show it again.
        </p>
        <div class="copy-row">
          <input id="new-key" class="key" readonly value="${secret}" aria-label="New API key" />
          <button type="button" data-copy="#new-key">Copy</button>
        </div>
        <p class="hint" data-copied hidden role="status">Copied to the clipboard.</p>
        <p>
          The same key for Google's client libraries (they accept only keys that start with
          <code>AIza</code>); it counts as this key on every host:
        </p>
        <div class="copy-row">
          <input
            id="new-key-google"
            class="key"
            readonly
            value="${googleKey}"
            aria-label="The same key, Google-shaped"
          />
          <button type="button" data-copy="#new-key-google">Copy</button>
        </div>
        <p>
          Label: <strong>${key.label ?? '(no label)'}</strong>${modeBadge(key)} ·
          ${KIND[key.kind]}${key.packageUntil ? html` · valid until ${time(key.packageUntil)}` : ''}
        </p>
        <p>Send it in the <code>X-API-Key</code> header (preferred: query strings end up in logs).</p>
        ${key.previousSecretUntil ? html`<p>The previous secret keeps working until ${time(key.previousSecretUntil)}.</p>` : ''}
        ${extra ?? ''}
        <p><a class="button" href="/keys/${key.id}">I have stored it safely</a></p>
      </div>
      ${key.mode === 'test' ? testKeyHelp() : ''}`,
  );
}

/** The rename form of a key, with the current label or the refused input and its error. */
function renameForm(ctx: PageContext, k: KeyDetail, form: RenameForm): Html {
  return html`<form method="post" action="/keys/${k.id}/label" class="card inline rename">
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    ${field({ name: 'label', label: 'Label', value: form.label ?? k.label ?? '', error: form.error, hint: ctx.rules.keyLabelRequired ? 'Every key has a label: 1 to 100 characters.' : 'Up to 100 characters; leave empty for no label.', required: ctx.rules.keyLabelRequired })}
    <button type="submit">Save label</button>
  </form>`;
}

/** The rename form's state after a refusal or a save. */
export interface RenameForm {
  label?: string;
  error?: string;
  message?: string;
}

/** A key with the addresses holding its slots and when each frees (spec 5.5). */
export function keyDetailPage(
  ctx: PageContext,
  k: KeyDetail,
  form: RenameForm = {},
  restrictions: RestrictionsForm = {},
  secrets: { rotate?: string; expiry?: string } = {},
): string {
  const mode =
    ctx.rules.slotMode === 'fixed'
      ? 'A slot frees 24 hours after the first request from its address.'
      : 'A slot frees when its address has not been seen for 24 hours.';
  const slots = k.slots.map(
    (s) =>
      html`<tr>
        <td data-label="Address"><code>${s.address.replace(/\/32$/, '')}</code></td>
        <td data-label="First seen">${time(s.firstSeen)}</td>
        <td data-label="Last seen">${time(s.lastSeen)}</td>
        <td data-label="Frees at">${time(s.freesAt)}</td>
      </tr>`,
  );
  return page(
    ctx,
    '/keys',
    k.label ?? `Key ${k.prefix}…`,
    html`${form.message ? html`<p class="alert ok" role="status">${form.message}</p>` : ''}
      ${renameForm(ctx, k, form)}
      <dl class="facts">
        <dt>Prefix</dt>
        <dd><code>${k.prefix}…</code>${modeBadge(k)}</dd>
        <dt>Kind</dt>
        <dd>${KIND[k.kind]}</dd>
        <dt>Status</dt>
        <dd>${status(k as KeyJson)}</dd>
        <dt>Created</dt>
        <dd>${time(k.createdAt)}</dd>
        ${
          k.packageUntil
            ? html`<dt>Package ends</dt>
                <dd>${time(k.packageUntil)}</dd>`
            : ''
        }
        ${
          k.revokedAt
            ? html`<dt>Revoked</dt>
                <dd>${time(k.revokedAt)}</dd>`
            : ''
        }
      </dl>
      <h2>IP slots: ${k.slots.length} of ${k.slotCapacity} in use</h2>
      <p class="hint">${mode}</p>
      ${dataTable('slots', ['Address', 'First seen', 'Last seen', 'Frees at'], slots, 'No address holds a slot.')}
      ${k.mode === 'test' ? testKeyHelp() : ''} ${restrictionsEditor(ctx, k, restrictions)}
      ${rotateSection(ctx, k, secrets.rotate)} ${expirySection(ctx, k, secrets.expiry)}
      <p><a href="/usage?subject=${k.id}">Usage of this key</a></p>
      ${k.status === 'active' ? html`<p><a class="button danger" href="/keys/${k.id}/revoke">Revoke this key</a></p>` : ''}`,
  );
}

/** The restrictions editor's state after a refusal or a save (the no-JavaScript path). */
export interface RestrictionsForm {
  referrers?: string;
  cidrs?: string;
  error?: string;
  field?: string | undefined;
  message?: string;
}

/** A textarea of the editor, one entry per line, with its error when the refused field is in this list. */
function listField(
  name: 'referrers' | 'cidrs',
  label: string,
  value: string,
  hint: Html,
  error?: string,
): Html {
  const id = `r-${name}`;
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${label}</label>
    <textarea
      id="${id}"
      name="${name}"
      rows="4"
      spellcheck="false"
      autocapitalize="off"
      aria-describedby="${id}-hint${error ? html` ${id}-error` : ''}"
      ${error ? html`aria-invalid="true"` : ''}
    >
${value}</textarea>
    <p class="hint" id="${id}-hint">${hint}</p>
    ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
    <ul class="line-errors" data-line-errors="${name}" aria-live="polite"></ul>
  </div>`;
}

/**
 * The restrictions editor (D29) with the live tester: the tester posts the rules as typed to /api/restrictions/test
 * (dashboard.js, debounced), which answers with the gateway's own matcher. Without JavaScript the form still saves.
 */
function restrictionsEditor(ctx: PageContext, k: KeyDetail, form: RestrictionsForm): Html {
  const r = k.restrictions;
  const errorIn = (name: string) =>
    form.error !== undefined && form.field !== undefined && form.field.startsWith(name)
      ? form.error
      : undefined;
  const other =
    form.error !== undefined && !errorIn('referrers') && !errorIn('cidrs') ? form.error : undefined;
  return html`<link rel="stylesheet" href="/static/restrictions.css" />
    <section class="card restrictions" id="restrictions" aria-labelledby="restrictions-title">
      <h2 id="restrictions-title">Restrictions</h2>
      <p class="hint">
        Limit where this key works. Empty lists: anywhere. A request that breaks a rule is refused with 403
        <code>key_restricted</code> and is not counted.
      </p>
      ${form.message ? html`<p class="alert ok" role="status">${form.message}</p>` : ''}
      ${other ? html`<p class="alert error" role="alert">${other}</p>` : ''}
      <form
        method="post"
        action="/keys/${k.id}/restrictions"
        data-restrictions
        data-test-url="/api/restrictions/test"
      >
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        ${listField(
          'referrers',
          'Allowed web pages (one pattern per line, at most 20)',
          form.referrers ?? r.referrers.join('\n'),
          html`<code>[scheme://]host[:port][/path]</code>, e.g. <code>https://*.example.com</code> or
            <code>localhost:3000</code>. Checked against the browser's Origin header, or else its Referer (a
            path only against a Referer).`,
          errorIn('referrers'),
        )}
        ${listField(
          'cidrs',
          'Allowed source addresses (one per line, at most 50)',
          form.cidrs ?? r.cidrs.join('\n'),
          html`IPv4 or IPv6 addresses or blocks, e.g. <code>203.0.113.0/24</code> or
            <code>2001:db8::/48</code>.`,
          errorIn('cidrs'),
        )}
        <button type="submit">Save restrictions</button>
      </form>
      <div class="tester" data-tester hidden>
        <h3>Try it</h3>
        <p class="hint">Type a page or an address: the answer comes from the gateway's own matching, live.</p>
        <div class="field">
          <label for="t-page">A page (URL or origin)</label>
          <input
            id="t-page"
            type="text"
            inputmode="url"
            spellcheck="false"
            placeholder="https://www.example.com/maps"
            data-test-page
          />
          <p class="verdict" data-verdict="page" role="status" aria-live="polite"></p>
        </div>
        <div class="field">
          <label for="t-address">An address</label>
          <input id="t-address" type="text" spellcheck="false" placeholder="203.0.113.7" data-test-address />
          <p class="verdict" data-verdict="address" role="status" aria-live="polite"></p>
        </div>
      </div>
    </section>`;
}

/** Confirmation before revoking (no way back). */
export function revokeConfirmPage(ctx: PageContext, k: KeyJson): string {
  return page(
    ctx,
    '/keys',
    'Revoke key?',
    html`<form method="post" action="/keys/${k.id}/revoke" class="card">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <p>
        Revoke <strong>${k.label ?? '(no label)'}</strong> (<code>${k.prefix}…</code>)? Within a minute, every
        request with it gets 401. This cannot be undone.
      </p>
      <p class="hint">Rotating? Make sure the new key is deployed first.</p>
      <button type="submit" class="danger">Revoke key</button> <a href="/keys">Cancel</a>
    </form>`,
  );
}
