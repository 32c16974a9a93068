/** The usage CSV: fields escaped per RFC 4180 and against spreadsheet formulas; read back by a strict parser. */
import { csvField, toCsv, usageCsv, usageCsvName } from '../../../dashboard/services/csv';
import type { UsageReport } from '../../../dashboard/services/usage';
import { parseCsv } from '../../helpers/csv';

describe('csvField', () => {
  test.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['line\nbreak', '"line\nbreak"'],
    [' edge ', '" edge "'],
    ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['=1,"x"', '"\'=1,""x"""'],
    [42, '42'],
  ])('%j → %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

describe('usageCsv', () => {
  const report: UsageReport = {
    subject: 'key_abc',
    allowance: 2500,
    today: { day: '2026-11-26', free: 3, billed: 1, refused: 2 },
    resetAt: '2026-11-27T00:00:00.000Z',
    days: [
      { day: '2026-11-25', free: 0, billed: 0, refused: 0 },
      { day: '2026-11-26', free: 3, billed: 1, refused: 2 },
    ],
  };

  test('a header and one CRLF row per day, a label with commas, quotes and a line break read back intact', () => {
    const label = 'prod, "eu"\nsecond line';
    const text = usageCsv(report, label);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['day_utc', 'subject', 'free', 'billed', 'refused', 'free_allowance'],
      ['2026-11-25', label, '0', '0', '0', '2500'],
      ['2026-11-26', label, '3', '1', '2', '2500'],
    ]);
  });

  test('names the file after the subject and the days', () => {
    expect(usageCsvName(report)).toBe('usage-key_abc-2026-11-25-to-2026-11-26.csv');
  });

  test('the test parser refuses what is not CSV (so the check above can fail)', () => {
    expect(() => parseCsv('a,"b\r\n')).toThrow('unterminated');
    expect(() => parseCsv('a,b"c\r\n')).toThrow('bare quote');
    expect(() => parseCsv('a,b')).toThrow('no CRLF');
    expect(parseCsv(toCsv([['x', 'y,z']]))).toEqual([['x', 'y,z']]);
  });
});
