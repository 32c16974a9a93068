/** Customer documentation pages: the problem pages and the provider migration guides. */
import type { GatewayCode } from '../../gateway/core/errors';
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { Brand } from '../brand';
import type { Guide } from '../docs/guides';
import { problemHead, problemText } from '../docs/problems';
import { html, Html } from './html';
import { page, publicPage, type PageContext } from './layout';

/** A documentation page: in the signed-in frame when there is a session, else the public one. */
export function docPage(
  ctx: PageContext | null,
  brand: Brand,
  active: string,
  title: string,
  body: Html,
): string {
  return ctx === null ? publicPage(brand, title, body) : page(ctx, active, title, body);
}

/** The body of one problem's page. */
export function problemBody(rules: RuleSet, code: GatewayCode, topUp: string): Html {
  const head = problemHead(code);
  const t = problemText(rules, code);
  const lifts =
    code === 'no_credits' || (code === 'quota_exceeded' && rules.noCreditsCode === 'quota_exceeded');
  return html`<p class="problem-code"><code>${head.status}</code> <code>${code}</code></p>
    <section class="card">
      <h2>What happened</h2>
      <p>${t.what}</p>
      <h2>What to do</h2>
      <p>${t.todo}</p>
      ${lifts ? html`<p><a class="button" href="${topUp}">Top up</a></p>` : ''}
    </section>
    <p><a href="/problems">All problems</a> · <a href="/api-reference">API reference</a></p>`;
}

/** The list of every problem this deployment answers with. */
export function problemsIndex(rules: RuleSet, codes: readonly GatewayCode[]): Html {
  return html`<p>
      Every error answer names its problem in <code>code</code>; its <code>type</code> is the page below.
    </p>
    <ul class="problem-list">
      ${codes.map((c) => {
        const head = problemHead(c);
        return html`<li>
          <a href="/problems/${c}"><code>${head.status}</code> ${head.title}</a> —
          ${problemText(rules, c).what}
        </li>`;
      })}
    </ul>`;
}

/** The list of the migration guides this deployment serves. */
export function guidesIndex(guides: readonly Guide[]): Html {
  if (guides.length === 0)
    return html`<p>
      This service has no drop-in hosts: call the API as the <a href="/api-reference">API reference</a> shows.
    </p>`;
  return html`<p>
      Moving from another geocoding service? Each of these hosts answers like that provider: change the host
      name and the key, and keep your code.
    </p>
    <ul class="guide-list">
      ${guides.map((g) => html`<li><a href="/guides/${g.adapter}">${g.title.replace(/^Migrating from /, '')}</a> <span class="hint">${g.url}</span></li>`)}
    </ul>`;
}

/** One guide: its rendered Markdown (escaped by the renderer) with a note on the key shown in the samples. */
export function guideBody(
  guide: Guide,
  bodyHtml: string,
  key: { prefix: string; label: string | null } | null,
): Html {
  return html`${
      key
        ? html`<p class="alert ok">
            The samples show your key <code>${key.prefix}…</code>${key.label ? html` (${key.label})` : ''}:
            paste the whole key you stored.
          </p>`
        : html`<p class="hint">
            Signed in, the samples show your own key's prefix. <a href="/signin">Sign in</a>
          </p>`
    }
    <article class="guide">${new Html(bodyHtml)}</article>
    <p><a href="/guides">All guides</a></p>`;
}
