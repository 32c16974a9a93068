/** The page frame: head, navigation, flash message, and the CSRF token for the script's API calls. */
import type { RuleSet } from '../../gateway/policy/ruleset';
import { faviconUrl, type Brand } from '../brand';
import { html, type Html } from './html';

/** What every signed-in page knows. */
export interface PageContext {
  brand: Brand;
  rules: RuleSet;
  csrf: string;
  email: string;
  suspended: boolean;
  /** Whether the Notifications page exists (the config has `dashboard.notifications`). */
  notifications?: boolean;
  /** The e-mail address is not verified yet (rule set A's sign-up, issue 15 item 1): a banner with "send again". */
  unverified?: boolean;
}

const NAV: { path: string; label: string; whitelist?: true; notifications?: true }[] = [
  { path: '/', label: 'Overview' },
  { path: '/keys', label: 'Keys' },
  { path: '/whitelist', label: 'Whitelist', whitelist: true },
  { path: '/credit', label: 'Credit' },
  { path: '/billing', label: 'Billing' },
  { path: '/usage', label: 'Usage' },
  { path: '/notifications', label: 'Notifications', notifications: true },
  { path: '/api-reference', label: 'API reference' },
  { path: '/guides', label: 'Guides' },
  { path: '/settings', label: 'Settings' },
];

function head(brand: Brand, title: string, csrf: string | null): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${csrf ? html`<meta name="csrf-token" content="${csrf}" />` : ''}
        <title>${title} · ${brand.productName}</title>
        <link
          rel="icon"
          href="${faviconUrl(brand)}"
          ${brand.favicon ? html` type="${brand.favicon.type}"` : html` type="image/svg+xml"`}
        />
        <link rel="stylesheet" href="/static/dashboard.css" />
        <link rel="stylesheet" href="/static/customer.css" />
        <script src="/static/dashboard.js" defer></script>
      </head>
    </html>`;
}

/** The header's brand: the configured logo (decorative: the name follows it) and the product name. */
function brandLink(brand: Brand): Html {
  const logo = brand.logo ? html`<img class="logo" src="/brand/logo" alt="" height="28" />` : '';
  const name = html`<span>${brand.productName}</span>`;
  return html`<a class="brand" href="/">${logo}${name}</a>`;
}

/** The first focusable element: jumps over the header to the page's content (WCAG 2.4.1). */
const skipLink = html`<a class="skip" href="#main">Skip to content</a>`;

/** The configured footer text. */
function footer(brand: Brand): Html {
  return html`<footer class="foot"><p>${brand.footer}</p></footer>`;
}

/** The banner of every signed-in page while the address is unverified, with "send it again". */
function unverifiedBanner(ctx: PageContext) {
  return html`<div class="alert warn verify" role="status">
    <p>
      Confirm your e-mail address: we sent a link to <strong>${ctx.email}</strong>. Until then you can look
      around, but not create keys or top up.
    </p>
    <form method="post" action="/verify/resend">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" />
      <button type="submit" class="secondary small">Send the link again</button>
    </form>
  </div>`;
}

/** A signed-in page. */
export function page(ctx: PageContext, active: string, title: string, body: Html): string {
  const items = NAV.filter(
    (n) => (!n.whitelist || ctx.rules.whitelist) && (!n.notifications || ctx.notifications === true),
  );
  return html`${head(ctx.brand, title, ctx.csrf)}
<body>
${skipLink}
<header class="top">
  ${brandLink(ctx.brand)}
  <button type="button" class="menu-toggle secondary small" aria-expanded="false" aria-controls="main-nav" hidden>Menu</button>
  <nav id="main-nav" aria-label="Main">${items.map(
    (n) => html`<a href="${n.path}" ${n.path === active ? html` aria-current="page"` : ''}>${n.label}</a>`,
  )}</nav>
  <form method="post" action="/signout" class="signout">
    <input type="hidden" name="_csrf" value="${ctx.csrf}">
    <span class="who">${ctx.email}</span> <button type="submit" class="link">Sign out</button>
  </form>
</header>
<main id="main" tabindex="-1">
${ctx.unverified ? unverifiedBanner(ctx) : ''}
${ctx.suspended ? html`<p class="alert error" role="alert">This account is suspended: requests with its keys are refused (403 account_suspended). Contact support.</p>` : ''}
<h1>${title}</h1>
${body}
</main>
${footer(ctx.brand)}
</body>
</html>`.text;
}

/** A page for visitors who are not signed in (sign-in, sign-up, link confirmation). */
export function publicPage(brand: Brand, title: string, body: Html): string {
  return html`${head(brand, title, null)}
<body class="public">
${skipLink}
<header class="top public">
  ${brandLink(brand)}
  <nav aria-label="Main"><a href="/api-reference">API reference</a> <a href="/guides">Guides</a></nav>
</header>
<main id="main" class="narrow" tabindex="-1">
<h1>${title}</h1>
${body}
</main>
${footer(brand)}
</body>
</html>`.text;
}

/** A text input with its label and, when refused, its error next to it. */
export function field(opts: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | undefined;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
}): Html {
  const id = `f-${opts.name}`;
  const err = opts.error;
  return html`<div class="field${err ? ' invalid' : ''}">
    <label for="${id}">${opts.label}</label>
    <input
      id="${id}"
      name="${opts.name}"
      type="${opts.type ?? 'text'}"
      value="${opts.value ?? ''}"
      ${
        opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ''
      }${opts.required ? html` required` : ''}${err ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}
    />
    ${opts.hint ? html`<p class="hint">${opts.hint}</p>` : ''}
    ${err ? html`<p class="error" id="${id}-error" role="alert">${err}</p>` : ''}
  </div>`;
}
