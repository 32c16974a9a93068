/** The console's page frame: head, skip link, navigation, the operator and sign-out, a flash message. */
import { html, type Html } from '../../dashboard/views/html';
import type { Operator } from '../../gateway/store/ports/console';

/** Where the console is mounted on the admin listener. */
export const BASE = '/console';

/** What every signed-in page knows. */
export interface Frame {
  operator: Operator;
  csrf: string;
  ruleSet: string;
  /** A confirmation shown at the top (fixed texts only, never input). */
  flash?: string | null;
}

const NAV = [
  { path: '/', label: 'Overview' },
  { path: '/search', label: 'Search' },
  { path: '/audit', label: 'Audit log' },
];

function head(title: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · geogate console</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${BASE}/static/console.css" />
      </head>
    </html>`;
}

/** A signed-in page. `current` marks the navigation entry of this page. */
export function page(frame: Frame, title: string, current: string, body: Html): string {
  const op = frame.operator;
  return html`${head(title)}
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">geogate console <span class="tag">rule set ${frame.ruleSet}</span></span>
        <nav aria-label="Console">
          <ul>
            ${NAV.map(
              (n) =>
                html`<li>
                  <a href="${BASE}${n.path}" ${n.path === current ? html`aria-current="page"` : ''}
                    >${n.label}</a
                  >
                </li>`,
            )}
          </ul>
        </nav>
        <form method="post" action="${BASE}/signout" class="signout">
          <input type="hidden" name="_csrf" value="${frame.csrf}" />
          <span class="who">${op.name} <span class="tag" data-role="${op.role}">${op.role}</span></span>
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main id="main" tabindex="-1">
        <h1>${title}</h1>
        ${frame.flash ? html`<p class="flash" role="status">${frame.flash}</p>` : ''} ${body}
      </main>
    </body>
  </html>`.text;
}

/** A page for visitors (sign-in) and error pages. */
export function plainPage(title: string, body: Html): string {
  return html`${head(title)}
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top"><span class="brand">geogate console</span></header>
      <main id="main" tabindex="-1">
        <h1>${title}</h1>
        ${body}
      </main>
    </body>
  </html>`.text;
}

/** A POST form of one button (CSRF token included), with optional fields before the button. */
export function actionForm(
  frame: Frame,
  action: string,
  button: string,
  fields: Html | string = '',
  cls = 'inline',
): Html {
  return html`<form method="post" action="${BASE}${action}" class="${cls}">
    <input type="hidden" name="_csrf" value="${frame.csrf}" />
    ${typeof fields === 'string' ? '' : fields}
    <button type="submit">${button}</button>
  </form>`;
}
