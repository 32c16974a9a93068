import { convertAsn, findAsnRange, flattenRanges, parseAsnLine } from '../../../backend/geodata/convert-asn';
import { fixtureText } from '../../fixtures/backend/fixture-data';

const ip = (text: string): number => text.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);

describe('ASN table (asn-ipv4-num.csv → flat ranges)', () => {
  it('parses plain and quoted organisation names, with "" escapes', () => {
    expect(parseAsnLine('134744064,134744319,15169,Google LLC')).toEqual({
      start: 134744064,
      end: 134744319,
      asn: 15169,
      org: 'Google LLC',
    });
    expect(parseAsnLine('1,2,3,"Cloudflare, Inc."')?.org).toBe('Cloudflare, Inc.');
    expect(parseAsnLine('1,2,3,"LLC ""SPUTNIK"""')?.org).toBe('LLC "SPUTNIK"');
    expect(parseAsnLine('not,a,valid,line')).toBeNull();
    expect(parseAsnLine('5,4,3,start after end')).toBeNull();
  });

  const orgs: string[] = [];
  const { table, skipped } = convertAsn(fixtureText('asn-ipv4-num.csv'), orgs);
  const lookup = (text: string): { asn: number; org: string } | null => {
    const r = findAsnRange(table, ip(text));
    return r < 0 ? null : { asn: table.asn[r] as number, org: orgs[table.org[r] as number] as string };
  };

  it('counts bad lines instead of failing', () => {
    expect(skipped).toBe(1);
  });

  it('finds 8.8.8.8 → AS15169 Google LLC and misses uncovered addresses', () => {
    expect(lookup('8.8.8.8')).toEqual({ asn: 15169, org: 'Google LLC' });
    expect(lookup('8.8.7.255')).toBeNull();
    expect(lookup('0.0.0.0')).toBeNull();
    expect(lookup('255.255.255.255')).toBeNull();
  });

  it('answers the inner range inside a nested one, and the outer range on both sides of it', () => {
    expect(lookup('80.240.255.0')?.asn).toBe(20712); // before the nested range
    expect(findAsnRange(table, 1358020608)).toBeGreaterThanOrEqual(0);
    expect(table.asn[findAsnRange(table, 1358020608)]).toBe(64500);
    expect(table.asn[findAsnRange(table, 1358021119)]).toBe(64500);
    expect(table.asn[findAsnRange(table, 1358021120)]).toBe(20712); // after it, still inside the outer one
    expect(table.asn[findAsnRange(table, 1358036991)]).toBe(20712);
  });

  it('lets the later-starting range win where two overlap (the real DoD case)', () => {
    expect(table.asn[findAsnRange(table, 3607101439)]).toBe(749);
    expect(table.asn[findAsnRange(table, 3607101440)]).toBe(721);
    expect(table.asn[findAsnRange(table, 3607167999)]).toBe(721);
    expect(findAsnRange(table, 3607168000)).toBe(-1);
  });

  it('flattens into sorted, disjoint ranges', () => {
    const flat = flattenRanges([
      { start: 0, end: 100, asn: 1, org: 0 },
      { start: 10, end: 20, asn: 2, org: 0 },
      { start: 10, end: 15, asn: 3, org: 0 },
      { start: 200, end: 300, asn: 4, org: 0 },
    ]);
    expect(flat.map((r) => [r.start, r.end, r.asn])).toEqual([
      [0, 9, 1],
      [10, 15, 3],
      [16, 20, 2],
      [21, 100, 1],
      [200, 300, 4],
    ]);
  });
});
