/** Plain-text rendering for the CLI: aligned tables and "label value" blocks. */

type Cell = string | number | boolean | null | undefined;

const show = (v: Cell): string => (v === null || v === undefined || v === '' ? '-' : String(v));

/** An aligned table with a header row; "(none)" when there are no rows. */
export function table(headers: string[], rows: Cell[][]): string {
  if (rows.length === 0) return '(none)';
  const cells = [headers, ...rows.map((r) => r.map(show))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** "Label  value" lines, labels aligned. */
export function fields(pairs: [string, Cell][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${show(v)}`).join('\n');
}

/** A balance or amount with its unit: A answers EUR strings, B whole credits as numbers. */
export function money(v: unknown): string {
  return typeof v === 'number' ? `${v} credits` : `${String(v)} EUR`;
}
