/** The Notifications page (issue 15 item 2, D30): e-mail alerts, low-balance threshold, webhooks, delivery log. */
import type { DeliveryLogEntry, WebhookEndpoint } from '../../gateway/store/notifications';
import { dataTable, html, time, type Html } from './html';
import { field, page, type PageContext } from './layout';

/** What the page shows. */
export interface NotificationsView {
  email: string;
  /** Whether the gateway sends e-mail at all (SMTP configured). */
  emailAvailable: boolean;
  emailAlerts: boolean;
  /** The threshold as typed or as stored ("5.00"), or "" when none. */
  threshold: string;
  unit: string;
  endpoints: WebhookEndpoint[];
  maxEndpoints: number;
  /** Whether http:// to loopback or private addresses is allowed (the config's allowPrivateTargets). */
  privateTargets: boolean;
  log: DeliveryLogEntry[];
}

/** What the last form did: a message, field errors, a new endpoint's secret (shown only here, once). */
export interface NotificationsForm {
  message?: string;
  errors?: Partial<Record<'threshold' | 'url', string>>;
  url?: string;
  secret?: { endpoint: string; value: string };
}

const EVENT: Record<string, string> = {
  'allowance.80': 'Allowance 80 %',
  'allowance.100': 'Allowance 100 %',
  'balance.low': 'Low balance',
  'unlimited.ending': 'Unlimited ending',
  'key.revoked': 'Key revoked',
  'key.expiring': 'Key ending',
  'notification.test': 'Test',
  'topup.auto.succeeded': 'Auto top-up',
  'topup.auto.failed': 'Auto top-up failed',
};

const iso = (ms: number) => new Date(ms).toISOString();

function outcome(l: DeliveryLogEntry): Html {
  if (l.ok)
    return html`<span class="ok"
      >Delivered${l.httpStatus !== null ? html` (HTTP ${l.httpStatus})` : ''}</span
    >`;
  return html`<span class="bad"
    >Failed: ${l.httpStatus !== null ? `HTTP ${l.httpStatus}` : (l.error ?? 'error')}</span
  >`;
}

function secretBox(s: NonNullable<NotificationsForm['secret']>): Html {
  return html`<div class="secret card">
    <p class="alert warn" role="alert">
      <strong>Copy this signing secret now.</strong> It is shown only this once. Your receiver verifies each
      delivery's <code>webhook-signature</code> with it (Standard Webhooks).
    </p>
    <div class="copy-row">
      <input
        id="new-secret"
        class="key"
        readonly
        value="${s.value}"
        aria-label="Signing secret of ${s.endpoint}"
      />
      <button type="button" data-copy="#new-secret">Copy</button>
    </div>
    <p class="hint" data-copied hidden role="status">Copied to the clipboard.</p>
  </div>`;
}

function settingsForm(ctx: PageContext, v: NotificationsView, f: NotificationsForm): Html {
  return html`<form method="post" action="/notifications/settings" class="card">
    <h2>Alerts</h2>
    <p>
      You are told when today's free allowance reaches 80 % and 100 %, when your balance falls below the
      threshold, when an Unlimited ${ctx.rules.unlimited === 'package-key' ? 'package' : 'plan'} ends within 7
      days, and when a key is revoked.
    </p>
    <input type="hidden" name="_csrf" value="${ctx.csrf}" />
    <div class="field check">
      <input
        id="f-emailAlerts"
        name="emailAlerts"
        type="checkbox"
        value="on"
        ${v.emailAlerts ? html`checked` : ''}
        ${v.emailAvailable ? '' : html`disabled`}
      />
      <label for="f-emailAlerts">E-mail alerts to ${v.email}</label>
      ${v.emailAvailable ? '' : html`<p class="hint">This server sends no e-mail; use a webhook.</p>`}
    </div>
    ${field({ name: 'threshold', label: `Low-balance threshold (${v.unit})`, value: v.threshold, error: f.errors?.threshold, hint: 'Leave empty for no low-balance alert. Told once each time the balance falls below it; a top-up that brings it back re-arms it.' })}
    <button type="submit">Save</button>
  </form>`;
}

function endpointsCard(ctx: PageContext, v: NotificationsView, f: NotificationsForm): Html {
  const rows = v.endpoints.map(
    (e) =>
      html`<tr>
        <td data-label="URL"><code>${e.url}</code></td>
        <td data-label="Added">${time(iso(e.createdAt))}</td>
        <td>
          <form method="post" action="/notifications/webhooks/${e.id}/delete">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" />
            <button type="submit" class="small danger" aria-label="Remove ${e.url}">Remove</button>
          </form>
        </td>
      </tr>`,
  );
  return html`<section class="card">
    <h2>Webhooks</h2>
    <p>
      Each event is POSTed as JSON <code>{type, timestamp, data}</code>, signed with the endpoint's secret
      (headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>), and
      retried with growing waits until your endpoint answers 2xx. At most ${v.maxEndpoints} endpoints.
    </p>
    ${dataTable('notify', ['URL', 'Added', ''], rows, 'No endpoints yet.')}
    ${
      v.endpoints.length < v.maxEndpoints
        ? html`<form method="post" action="/notifications/webhooks" class="inline">
            <input type="hidden" name="_csrf" value="${ctx.csrf}" />
            ${field({ name: 'url', label: 'Endpoint URL', type: 'url', value: f.url ?? '', error: f.errors?.url, hint: v.privateTargets ? 'https://, or http:// to a loopback or private address (allowed on this server).' : 'https:// only.', required: true })}
            <button type="submit">Add endpoint</button>
          </form>`
        : ''
    }
    <form method="post" action="/notifications/test">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <button type="submit" class="secondary">Send test event</button>
    </form>
  </section>`;
}

function logCard(v: NotificationsView): Html {
  const rows = v.log.map(
    (l) =>
      html`<tr>
        <td data-label="Time">${time(iso(l.at))}</td>
        <td data-label="Event">${EVENT[l.type] ?? l.type}</td>
        <td data-label="Sent to">
          ${l.channel === 'email' ? 'E-mail' : 'Webhook'}: ${l.target ?? '(removed)'}
        </td>
        <td data-label="Attempt">${l.attempt}</td>
        <td data-label="Result">${outcome(l)}</td>
      </tr>`,
  );
  return html`<section class="card">
    <h2>Delivery log</h2>
    ${dataTable('notify log', ['Time', 'Event', 'Sent to', 'Attempt', 'Result'], rows, 'Nothing sent yet.')}
  </section>`;
}

/** The page. */
export function notificationsPage(ctx: PageContext, v: NotificationsView, f: NotificationsForm = {}): string {
  return page(
    ctx,
    '/notifications',
    'Notifications',
    html`${f.message ? html`<p class="alert ok" role="status">${f.message}</p>` : ''}
    ${f.secret ? secretBox(f.secret) : ''} ${settingsForm(ctx, v, f)} ${endpointsCard(ctx, v, f)}
    ${logCard(v)}`,
  );
}
