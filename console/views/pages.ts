/** The console's pages, rendered on the server (no script): sign-in, search, an account, the overview, errors. */
import { html, type Html } from '../../dashboard/views/html';
import { formatMoney, type RuleSet } from '../../gateway/policy/ruleset';
import type { Receipt } from '../../gateway/store/receipts';
import type { DeliveryLogEntry } from '../../gateway/store/notifications';
import type { AuditRecord, Overview, RefusalRecord } from '../../gateway/store/ports/console';
import type { Account, ApiKey, LedgerEntry, SlotView, WhitelistEntry } from '../../gateway/store/types';
import { actionForm, BASE, page, plainPage, type Frame } from './layout';

const iso = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

/** Money with its unit: "12.3456 EUR" (A) or "120 credits" (B). */
export function money(rules: RuleSet, units: number): string {
  return `${formatMoney(rules, units)} ${rules.moneyDecimals === 0 ? 'credits' : 'EUR'}`;
}

function table(caption: string, columns: readonly string[], rows: readonly Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** The sign-in page: an operator's name and password, or the admin token (the first operator). */
export function signinPage(csrf: string, error: string | null, name = ''): string {
  return plainPage(
    'Operator sign-in',
    html`${error ? html`<p class="error" role="alert" id="signin-error">${error}</p>` : ''}
      <form method="post" action="${BASE}/signin" class="card stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="name">Operator name</label>
        <input id="name" name="name" autocomplete="username" maxlength="64" value="${name}" required />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          maxlength="1024"
          required
        />
        <button type="submit">Sign in</button>
      </form>
      <form method="post" action="${BASE}/signin" class="card stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <h2>First operator</h2>
        <p>Before any operator exists, sign in with the gateway's admin token (role admin).</p>
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" maxlength="512" required />
        <button type="submit">Sign in with the admin token</button>
      </form>`,
  );
}

/** An error page (signed in or not). */
export function errorPage(frame: Frame | null, status: number, message: string): string {
  const body = html`<p class="error" role="alert">${message}</p>
    <p><a href="${BASE}/">Back to the overview</a></p>`;
  return frame ? page(frame, `Error ${status}`, '', body) : plainPage(`Error ${status}`, body);
}

/** One search hit: the account and why it matched. */
export interface Hit {
  account: Account;
  why: string;
}

/** The search form and its results. */
export function searchPage(frame: Frame, q: string, hits: readonly Hit[] | null): string {
  const results =
    hits === null
      ? ''
      : table(
          'Matching accounts',
          ['Account', 'E-mail', 'Status', 'Matched by'],
          hits.map(
            (h) =>
              html`<tr>
                <td><a href="${BASE}/accounts/${h.account.id}">${h.account.id}</a></td>
                <td>${h.account.email}</td>
                <td>${h.account.status}</td>
                <td>${h.why}</td>
              </tr>`,
          ),
          'No account matches.',
        );
  return page(
    frame,
    'Search accounts',
    '/search',
    html`<form method="get" action="${BASE}/search" class="card stack" role="search">
        <label for="q">E-mail, key prefix or key, address, receipt number or account id</label>
        <input id="q" name="q" value="${q}" maxlength="200" autocomplete="off" required />
        <button type="submit">Search</button>
      </form>
      ${results}`,
  );
}

/** Everything the account page shows. */
export interface AccountView {
  account: Account;
  keys: { key: ApiKey; capacity: number; slots: SlotView[] }[];
  whitelist: WhitelistEntry[] | null;
  ledger: LedgerEntry[];
  usage: { day: string; free: number; billed: number; refused: number }[];
  refusals: RefusalRecord[];
  receipts: Receipt[];
  deliveries: DeliveryLogEntry[];
  /** The newest audit lines of the account. */
  audit: AuditRecord[];
  now: number;
}

/** Who acted: the operator by name, the admin API's token, or the customer. */
function actorOf(e: AuditRecord): string {
  if (e.operator !== null) return e.operator;
  return e.actor === 'customer' ? 'customer' : 'admin API';
}

/** The rows of audit lines; `withAccount` adds the account column (the log of every account). */
/** Details holding money in units (D16), shown with their unit. */
const MONEY_DETAILS = new Set(['units', 'balance', 'price']);

function auditRows(rules: RuleSet, entries: readonly AuditRecord[], withAccount: boolean): Html[] {
  const value = (k: string, v: string | number | null): string =>
    v === null ? '—' : typeof v === 'number' && MONEY_DETAILS.has(k) ? money(rules, v) : String(v);
  return entries.map(
    (e) =>
      html`<tr data-action="${e.action}">
        <td>${iso(e.at)}</td>
        <td data-field="operator">${actorOf(e)}</td>
        <td><code>${e.action}</code></td>
        ${
          withAccount
            ? html`<td>
                ${e.accountId ? html`<a href="${BASE}/accounts/${e.accountId}">${e.accountId}</a>` : '—'}
              </td>`
            : ''
        }
        <td>${e.object ?? '—'}</td>
        <td class="details">
          ${Object.entries(e.details)
            .filter(([k]) => k !== 'requestId')
            .map(([k, v]) => html`<span class="pill">${k}: ${value(k, v)}</span> `)}
        </td>
      </tr>`,
  );
}

const AUDIT_COLUMNS = ['Time', 'Operator', 'Action', 'Object', 'Details'];

/** The audit log: newest first, of every account or of one, a page at a time. */
export function auditPage(
  frame: Frame,
  rules: RuleSet,
  entries: readonly AuditRecord[],
  filter: { accountId: string | null; next: number | null },
): string {
  const columns =
    filter.accountId === null
      ? ['Time', 'Operator', 'Action', 'Account', 'Object', 'Details']
      : AUDIT_COLUMNS;
  const query = (before: number): string =>
    `${BASE}/audit?${filter.accountId !== null ? `account=${encodeURIComponent(filter.accountId)}&` : ''}before=${before}`;
  const body = html`<form method="get" action="${BASE}/audit" class="card stack">
      <label for="account">Account id</label>
      <input
        id="account"
        name="account"
        value="${filter.accountId ?? ''}"
        maxlength="40"
        autocomplete="off"
      />
      <button type="submit">Filter</button>
    </form>
    ${filter.accountId !== null ? html`<p><a href="${BASE}/audit">Every account</a> · <a href="${BASE}/accounts/${filter.accountId}">The account</a></p>` : ''}
    ${table('Audit log', columns, auditRows(rules, entries, filter.accountId === null), 'No audit lines.')}
    ${filter.next !== null ? html`<p><a href="${query(filter.next)}" rel="next">Older lines</a></p>` : ''}`;
  return page(frame, 'Audit log', '/audit', body);
}

/** Bars of requests per day as an inline SVG (presentation attributes only: the CSP allows no inline style). */
function usageChart(usage: AccountView['usage']): Html {
  const max = Math.max(1, ...usage.map((u) => u.free + u.billed + u.refused));
  const w = 12;
  const h = 80;
  const bars = usage.map((u, i) => {
    const served = Math.round(((u.free + u.billed) / max) * h);
    const refused = Math.round((u.refused / max) * h);
    return html`<g>
      <title>${u.day}: ${u.free + u.billed} served, ${u.refused} refused</title>
      <rect x="${i * w}" y="${h - served}" width="${w - 2}" height="${served}" class="bar-served" />
      <rect
        x="${i * w}"
        y="${h - served - refused}"
        width="${w - 2}"
        height="${refused}"
        class="bar-refused"
      />
    </g>`;
  });
  return html`<figure class="chart">
    <svg viewBox="0 0 ${Math.max(usage.length, 1) * w} ${h}" role="img" aria-labelledby="usage-caption">
      ${bars}
    </svg>
    <figcaption id="usage-caption">
      Requests per day over the last ${usage.length} days (served dark, refused light); the table below has
      the figures.
    </figcaption>
  </figure>`;
}

function keyRows(frame: Frame, v: AccountView): Html[] {
  return v.keys.map(({ key, capacity, slots }) => {
    const slotText = slots.length
      ? html`<ul class="plain">
          ${slots.map((s) => html`<li>${s.member} — frees ${iso(s.freesAt)}</li>`)}
        </ul>`
      : html`none held`;
    const revoke =
      key.status === 'active'
        ? actionForm(frame, `/accounts/${v.account.id}/keys/${key.id}/revoke`, `Revoke ${key.prefix}…`)
        : html`revoked ${iso(key.revokedAt)}`;
    const own = key.burst;
    const limits = html`${own?.perSecond ?? 'deployment'} / s, ${own?.perMinute ?? 'deployment'} / min`;
    const burst =
      frame.operator.role === 'admin' && key.status === 'active'
        ? html`${limits}
          ${actionForm(
            frame,
            `/accounts/${v.account.id}/keys/${key.id}/burst`,
            `Set ${key.prefix}… limits`,
            html`<label for="ps-${key.id}">Per second (empty: the deployment's)</label>
              <input
                id="ps-${key.id}"
                name="perSecond"
                inputmode="numeric"
                maxlength="10"
                value="${own?.perSecond ?? ''}"
              />
              <label for="pm-${key.id}">Per minute (empty: the deployment's)</label>
              <input
                id="pm-${key.id}"
                name="perMinute"
                inputmode="numeric"
                maxlength="10"
                value="${own?.perMinute ?? ''}"
              />`,
            'stack',
          )}`
        : limits;
    return html`<tr>
      <td><code>${key.prefix}…</code>${key.test ? ' (test)' : ''}</td>
      <td>${key.label ?? '—'}</td>
      <td>${key.kind}${key.packageUntil ? html` until ${iso(key.packageUntil)}` : ''}</td>
      <td>${key.status}</td>
      <td>${slots.length} of ${capacity}: ${slotText}</td>
      <td data-burst>${burst}</td>
      <td>${revoke}</td>
    </tr>`;
  });
}

function actions(frame: Frame, rules: RuleSet, a: Account): Html {
  const admin = frame.operator.role === 'admin';
  const status =
    a.status === 'active'
      ? actionForm(frame, `/accounts/${a.id}/suspend`, 'Suspend the account')
      : a.status === 'suspended'
        ? actionForm(frame, `/accounts/${a.id}/resume`, 'Resume the account')
        : html``;
  if (!admin) {
    return html`<section aria-labelledby="actions-h" class="card">
      <h2 id="actions-h">Actions</h2>
      ${status}
      <p class="note">Credit, plans and packages are for operators with the admin role.</p>
    </section>`;
  }
  const unit = rules.moneyDecimals === 0 ? 'credits (whole number)' : 'EUR (up to 4 decimals)';
  const credit = actionForm(
    frame,
    `/accounts/${a.id}/credit`,
    'Add credit',
    html`<label for="amount">Amount in ${unit}</label>
      <input id="amount" name="amount" inputmode="decimal" maxlength="20" required />
      <label for="reason">Reason (kept in the audit log)</label>
      <input id="reason" name="reason" maxlength="200" required />`,
    'stack',
  );
  const plan =
    rules.unlimited === 'account-plan'
      ? actionForm(
          frame,
          `/accounts/${a.id}/plan`,
          'Set the Unlimited plan',
          html`<label for="until">Unlimited until (UTC date; empty: back to credits)</label>
            <input
              id="until"
              name="until"
              type="date"
              value="${a.unlimitedUntil ? new Date(a.unlimitedUntil).toISOString().slice(0, 10) : ''}"
            />`,
          'stack',
        )
      : html``;
  const pack =
    rules.unlimited === 'package-key'
      ? actionForm(
          frame,
          `/accounts/${a.id}/package`,
          `Buy an Unlimited package from the balance (${money(rules, rules.limits.packagePrice)})`,
        )
      : html``;
  return html`<section aria-labelledby="actions-h" class="card">
    <h2 id="actions-h">Actions</h2>
    ${status} ${credit} ${plan} ${pack}
  </section>`;
}

/** One account with its keys, money, usage, refusals, receipts and deliveries, and the actions of the role. */
export function accountPage(frame: Frame, rules: RuleSet, v: AccountView): string {
  const a = v.account;
  const byCode = new Map<string, number>();
  for (const r of v.refusals) byCode.set(r.code, (byCode.get(r.code) ?? 0) + 1);
  const prefixOf = new Map(v.keys.map((k) => [k.key.id, k.key.prefix]));
  const body = html`<dl class="facts">
      <dt>Account</dt>
      <dd><code>${a.id}</code></dd>
      <dt>E-mail</dt>
      <dd>${a.email}${a.emailVerifiedAt ? '' : ' (not verified)'}</dd>
      <dt>Name</dt>
      <dd>${a.name ?? '—'}</dd>
      <dt>Status</dt>
      <dd data-field="status">${a.status}</dd>
      <dt>Balance</dt>
      <dd data-field="balance">${money(rules, a.balance)}</dd>
      ${
        rules.unlimited === 'account-plan'
          ? html`<dt>Unlimited plan</dt>
              <dd>${a.unlimitedUntil ? `until ${iso(a.unlimitedUntil)}` : 'none'}</dd>`
          : ''
      }
      <dt>Signed up</dt>
      <dd>${iso(a.createdAt)}</dd>
    </dl>
    ${actions(frame, rules, a)}
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">Keys and IP slots</h2>
      ${table(
        'Keys',
        [
          'Key',
          'Label',
          'Kind',
          'Status',
          'IP slots (held of capacity, when each frees)',
          "Burst limits (own, or the deployment's)",
          'Action',
        ],
        keyRows(frame, v),
        'No keys.',
      )}
    </section>
    ${
      v.whitelist === null
        ? ''
        : html`<section aria-labelledby="wl-h">
            <h2 id="wl-h">Whitelist</h2>
            ${table(
              'Whitelist',
              ['Address block', 'Added'],
              v.whitelist.map(
                (w) =>
                  html`<tr>
                    <td>${w.cidr}</td>
                    <td>${iso(w.createdAt)}</td>
                  </tr>`,
              ),
              'No whitelist entries.',
            )}
          </section>`
    }
    <section aria-labelledby="refusals-h">
      <h2 id="refusals-h">Refusals of the last 24 hours</h2>
      <p>
        ${
          byCode.size === 0
            ? 'None recorded.'
            : [...byCode].map(([code, n]) => html`<span class="pill">${code}: ${n}</span> `)
        }
      </p>
      ${table(
        'Refusals',
        ['Time', 'Reason', 'Key', 'Address', 'Host'],
        v.refusals.map(
          (r) =>
            html`<tr>
              <td>${iso(r.at)}</td>
              <td><code>${r.code}</code></td>
              <td>${r.keyId ? `${prefixOf.get(r.keyId) ?? r.keyId}…` : '—'}</td>
              <td>${r.address}</td>
              <td>${r.host}</td>
            </tr>`,
        ),
        'No refusals in the last 24 hours.',
      )}
    </section>
    <section aria-labelledby="usage-h">
      <h2 id="usage-h">Usage</h2>
      ${usageChart(v.usage)}
      ${table(
        'Usage per day',
        ['Day', 'Free', 'Billed', 'Refused'],
        v.usage
          .filter((u) => u.free + u.billed + u.refused > 0)
          .map(
            (u) =>
              html`<tr>
                <td>${u.day}</td>
                <td>${u.free}</td>
                <td>${u.billed}</td>
                <td>${u.refused}</td>
              </tr>`,
          ),
        'No requests in this period.',
      )}
    </section>
    <section aria-labelledby="ledger-h">
      <h2 id="ledger-h">Ledger (hourly charges)</h2>
      ${table(
        'Ledger',
        ['When', 'Kind', 'Amount', 'Requests', 'Key'],
        v.ledger.map(
          (e) =>
            html`<tr>
              <td>${iso(e.createdAt)}</td>
              <td>${e.kind}</td>
              <td>${money(rules, e.amount)}</td>
              <td>${e.count ?? '—'}</td>
              <td>${e.keyId ? `${prefixOf.get(e.keyId) ?? e.keyId}…` : '—'}</td>
            </tr>`,
        ),
        'No ledger entries.',
      )}
    </section>
    <section aria-labelledby="receipts-h">
      <h2 id="receipts-h">Receipts</h2>
      ${table(
        'Receipts',
        ['Number', 'Kind', 'Method', 'Amount', 'Issued', 'Refunded'],
        v.receipts.map(
          (r) =>
            html`<tr>
              <td>${r.number}</td>
              <td>${r.kind}</td>
              <td>${r.method}</td>
              <td>${money(rules, r.amount)}</td>
              <td>${iso(r.issuedAt)}</td>
              <td>${r.refunded ? money(rules, r.refunded) : '—'}</td>
            </tr>`,
        ),
        'No receipts.',
      )}
    </section>
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Notification deliveries</h2>
      ${table(
        'Notification deliveries',
        ['When', 'Event', 'Channel', 'Attempt', 'Outcome'],
        v.deliveries.map(
          (d) =>
            html`<tr>
              <td>${iso(d.at)}</td>
              <td>${d.type}</td>
              <td>${d.channel}</td>
              <td>${d.attempt}</td>
              <td>${d.ok ? 'delivered' : (d.error ?? 'failed')}</td>
            </tr>`,
        ),
        'No deliveries.',
      )}
    </section>
    <section aria-labelledby="audit-h">
      <h2 id="audit-h">Audit log</h2>
      ${table('Audit lines of the account', AUDIT_COLUMNS, auditRows(rules, v.audit, false), 'No audit lines.')}
      <p><a href="${BASE}/audit?account=${a.id}">The whole audit log of the account</a></p>
    </section>`;
  return page(frame, a.email, '', body);
}

/** The business overview and the health of the backends and the store. */
export function overviewPage(
  frame: Frame,
  rules: RuleSet,
  o: Overview,
  refusals: Record<string, number>,
  health: Record<string, boolean>,
): string {
  const sum = (f: (d: Overview['days'][number]) => number) => o.days.reduce((s, d) => s + f(d), 0);
  const body = html`<section aria-labelledby="health-h">
      <h2 id="health-h">Health</h2>
      <ul class="plain health">
        ${Object.entries(health).map(
          ([k, ok]) => html`<li data-check="${k}">${k}: <strong>${ok ? 'ready' : 'NOT READY'}</strong></li>`,
        )}
      </ul>
    </section>
    <section aria-labelledby="totals-h">
      <h2 id="totals-h">Accounts (${o.days[0]?.day ?? ''} to ${o.days[o.days.length - 1]?.day ?? ''})</h2>
      <dl class="facts" id="totals">
        <dt>Accounts</dt>
        <dd data-figure="accounts">${o.accounts}</dd>
        <dt>Active (not suspended)</dt>
        <dd data-figure="active">${o.activeAccounts}</dd>
        <dt>With requests in the period</dt>
        <dd data-figure="using">${o.usingAccounts}</dd>
        <dt>Paying in the period</dt>
        <dd data-figure="paying">${o.payingAccounts}</dd>
        <dt>Sign-ups</dt>
        <dd data-figure="signups">${sum((d) => d.signups)}</dd>
        <dt>Topped up</dt>
        <dd data-figure="topped-up">
          ${money(
            rules,
            sum((d) => d.toppedUp),
          )}
        </dd>
        <dt>Revenue (charges and packages)</dt>
        <dd data-figure="revenue">
          ${money(
            rules,
            sum((d) => d.revenue),
          )}
        </dd>
        <dt>Keyed requests</dt>
        <dd data-figure="requests">${sum((d) => d.requests)}</dd>
      </dl>
    </section>
    <section aria-labelledby="days-h">
      <h2 id="days-h">Per day</h2>
      ${table(
        'Per day',
        [
          'Day',
          'Sign-ups',
          'Top-ups',
          'Topped up',
          'Revenue',
          'Requests (keys)',
          'Refused (keys)',
          'Anonymous',
          'Anonymous refused',
        ],
        o.days.map(
          (d) =>
            html`<tr>
              <td>${d.day}</td>
              <td>${d.signups}</td>
              <td>${d.topups}</td>
              <td>${money(rules, d.toppedUp)}</td>
              <td>${money(rules, d.revenue)}</td>
              <td>${d.requests}</td>
              <td>${d.refused}</td>
              <td>${d.anonymous}</td>
              <td>${d.anonymousRefused}</td>
            </tr>`,
        ),
        'No days.',
      )}
    </section>
    <section aria-labelledby="refcode-h">
      <h2 id="refcode-h">Refusals of the last 24 hours by reason</h2>
      ${table(
        'Refusals by reason',
        ['Reason', 'Refusals'],
        Object.entries(refusals)
          .sort((a, b) => b[1] - a[1])
          .map(
            ([code, n]) =>
              html`<tr>
                <td><code>${code}</code></td>
                <td>${n}</td>
              </tr>`,
          ),
        'No refusals of identified callers in the last 24 hours.',
      )}
    </section>
    <section aria-labelledby="top-h">
      <h2 id="top-h">Top keys</h2>
      ${table(
        'Top keys',
        ['Key', 'Account', 'Requests'],
        o.topKeys.map(
          (k) =>
            html`<tr>
              <td><code>${k.prefix}…</code></td>
              <td><a href="${BASE}/accounts/${k.accountId}">${k.accountId}</a></td>
              <td>${k.requests}</td>
            </tr>`,
        ),
        'No keyed requests in the period.',
      )}
    </section>`;
  return page(frame, 'Overview', '/', body);
}

/** The key of a package just bought, shown once. */
export function packagePage(frame: Frame, accountId: string, prefix: string, secret: string): string {
  return page(
    frame,
    'Unlimited package bought',
    '',
    html`<p>
        The package has its own key <code>${prefix}…</code>. Its secret is shown this once; pass it to the
        customer over a safe channel.
      </p>
      <p><label for="secret">Key</label> <input id="secret" readonly value="${secret}" class="secret" /></p>
      <p><a href="${BASE}/accounts/${accountId}">Back to the account</a></p>`,
  );
}
