/** Build-time conversion of @ip-location-db/asn's asn-ipv4-num.csv into a flat, non-overlapping AsnTable. */
import type { AsnTable } from './model';

interface AsnRange {
  start: number;
  end: number;
  asn: number;
  org: number;
}

/** Parses one CSV line `start,end,asn,org` where org may be double-quoted with "" escapes. */
export function parseAsnLine(line: string): { start: number; end: number; asn: number; org: string } | null {
  const m = /^(\d+),(\d+),(\d+),(.*)$/.exec(line);
  if (!m) return null;
  let org = m[4] as string;
  if (org.startsWith('"') && org.endsWith('"') && org.length >= 2) org = org.slice(1, -1).replace(/""/g, '"');
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start > end || end > 0xffffffff) return null;
  return { start, end, asn: Number(m[3]), org };
}

/** Converts the CSV text; org names are interned into `orgs`. Bad lines are counted, not fatal. */
export function convertAsn(csv: string, orgs: string[]): { table: AsnTable; skipped: number } {
  const orgIndex = new Map<string, number>();
  const ranges: AsnRange[] = [];
  let skipped = 0;
  for (const line of csv.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = parseAsnLine(line.replace(/\r$/, ''));
    if (!parsed) {
      skipped++;
      continue;
    }
    let org = orgIndex.get(parsed.org);
    if (org === undefined) {
      org = orgs.length;
      orgs.push(parsed.org);
      orgIndex.set(parsed.org, org);
    }
    ranges.push({ start: parsed.start, end: parsed.end, asn: parsed.asn, org });
  }
  return { table: toTable(flattenRanges(ranges)), skipped };
}

/**
 * Splits overlapping ranges into disjoint ones where the innermost (latest-starting) range wins, so a
 * binary search for "last start ≤ ip" is exact. The data has one nested range (DoD NIC at 3607101440).
 */
export function flattenRanges(input: readonly AsnRange[]): AsnRange[] {
  const ranges = [...input].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: AsnRange[] = [];
  const open: AsnRange[] = [];
  let cursor = 0;
  const emitUntil = (limit: number): void => {
    // Emit the innermost open range from cursor up to limit (inclusive), closing ranges as they end.
    while (open.length > 0 && cursor <= limit) {
      const top = open[open.length - 1] as AsnRange;
      const stop = Math.min(top.end, limit);
      if (cursor <= stop) out.push({ start: cursor, end: stop, asn: top.asn, org: top.org });
      cursor = stop + 1;
      while (open.length > 0 && (open[open.length - 1] as AsnRange).end < cursor) open.pop();
    }
  };
  for (const r of ranges) {
    emitUntil(r.start - 1);
    if (cursor < r.start || open.length === 0) cursor = r.start;
    open.push(r);
  }
  emitUntil(0xffffffff);
  return out;
}

function toTable(ranges: readonly AsnRange[]): AsnTable {
  const n = ranges.length;
  const table: AsnTable = {
    start: new Uint32Array(n),
    end: new Uint32Array(n),
    asn: new Uint32Array(n),
    org: new Uint32Array(n),
  };
  ranges.forEach((r, i) => {
    table.start[i] = r.start;
    table.end[i] = r.end;
    table.asn[i] = r.asn;
    table.org[i] = r.org;
  });
  return table;
}

/** Index of the range containing ip (a uint32), or -1. Binary search for the last start ≤ ip. */
export function findAsnRange(table: AsnTable, ip: number): number {
  const { start, end } = table;
  let lo = 0;
  let hi = start.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((start[mid] as number) <= ip) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && (end[found] as number) >= ip ? found : -1;
}
