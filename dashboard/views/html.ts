/** A tiny HTML template helper: every interpolated value is escaped unless it is already `Html`. */

/** Markup known to be safe (built by `html` or escaped). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for element content and quoted attributes. */
export function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escape(String(v));
}

/** Tagged template: `html\`<p>${userText}</p>\`` escapes userText. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** A `<time>` element: UTC text, turned into the reader's local time by dashboard.js. */
export function time(isoText: string | null, fallback = '—'): Html {
  if (!isoText) return html`${fallback}`;
  const utc = isoText.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  return html`<time datetime="${isoText}" data-local>${utc}</time>`;
}

/** A column heading of `dataTable`: its text, or its text with `num` for a right-aligned number column. */
export type Column = string | { text: string; num: true };

/**
 * A list page's table: `rows` under `columns` in a scrolling `.table-wrap`, or the `empty` sentence when there are
 * no rows.
 */
export function dataTable(
  cls: string,
  columns: readonly Column[],
  rows: readonly Html[],
  empty: string,
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  const heads = columns.map((c) =>
    typeof c === 'string' ? html`<th>${c}</th>` : html`<th class="num">${c.text}</th>`,
  );
  return html`<div class="table-wrap">
    <table class="${cls}">
      <thead>
        <tr>
          ${heads}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
