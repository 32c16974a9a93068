/** CSV export of usage (RFC 4180: comma-separated, CRLF line ends, fields quoted when they need it). */
import type { UsageReport } from './usage';

/** Characters a spreadsheet reads as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field: text a spreadsheet would run as a formula gets a leading apostrophe, and a field holding a comma, a
 * quote, a line break or edge spaces is quoted with its quotes doubled.
 */
export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows to CSV text, each line ended by CRLF. */
export function toCsv(rows: readonly (readonly (string | number)[])[]): string {
  return rows.map((r) => r.map(csvField).join(',') + '\r\n').join('');
}

/** The usage report as CSV: a header, then one row per UTC day, oldest first. */
export function usageCsv(r: UsageReport, subjectName: string): string {
  const header = ['day_utc', 'subject', 'free', 'billed', 'refused', 'free_allowance'];
  return toCsv([
    header,
    ...r.days.map((d) => [d.day, subjectName, d.free, d.billed, d.refused, r.allowance]),
  ]);
}

/** A download file name: `usage-<subject>-<first day>-to-<last day>.csv`. */
export function usageCsvName(r: UsageReport): string {
  const first = r.days[0]?.day ?? '';
  const last = r.days[r.days.length - 1]?.day ?? '';
  return `usage-${r.subject}-${first}-to-${last}.csv`;
}
