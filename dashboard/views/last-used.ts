/** A key's "last used" cell: the day, or the time and address while an IP slot holds it. */
import type { LastUsed } from '../services/last-used';
import { html, time, type Html } from './html';

/** The cell's content. */
export function lastUsedCell(u: LastUsed | undefined): Html {
  if (u === undefined) return html`<span class="hint">Not in 90 days</span>`;
  if (u.at === null) return html`<span data-last-used="${u.day}">${u.day}</span>`;
  return html`<span data-last-used="${u.day}">${time(new Date(u.at).toISOString())}</span
    >${u.address ? html` <span class="hint">from <code>${u.address}</code></span>` : ''}`;
}
