import { addCalendarMonth, daysInMonth } from '../../../gateway/admin/month';

const at = (s: string): number => Date.parse(s);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('one calendar month from purchase (D17)', () => {
  it.each([
    ['2026-01-15T10:20:30.400Z', '2026-02-15T10:20:30.400Z'],
    ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'], // clamped to the shorter month
    ['2028-01-31T00:00:00.000Z', '2028-02-29T00:00:00.000Z'], // leap year
    ['2026-03-31T23:59:59.999Z', '2026-04-30T23:59:59.999Z'],
    ['2026-02-28T12:00:00.000Z', '2026-03-28T12:00:00.000Z'], // not moved to the month's end
    ['2026-12-15T08:00:00.000Z', '2027-01-15T08:00:00.000Z'], // year rollover
    ['2026-12-31T08:00:00.000Z', '2027-01-31T08:00:00.000Z'],
    ['2026-08-31T00:00:00.000Z', '2026-09-30T00:00:00.000Z'],
  ])('%s + 1 month = %s', (from, to) => {
    expect(iso(addCalendarMonth(at(from)))).toBe(to);
  });

  it('always lands 28 to 31 days later, at the same time of day', () => {
    for (let t = at('2025-01-01T07:13:00Z'); t < at('2029-01-01T00:00:00Z'); t += 86_400_000) {
      const days = (addCalendarMonth(t) - t) / 86_400_000;
      expect(days).toBeGreaterThanOrEqual(28);
      expect(days).toBeLessThanOrEqual(31);
      expect(iso(addCalendarMonth(t)).slice(11)).toBe(iso(t).slice(11));
    }
  });

  it('knows the lengths of months', () => {
    expect([0, 1, 2, 3].map((m) => daysInMonth(2026, m))).toEqual([31, 28, 31, 30]);
    expect(daysInMonth(2028, 1)).toBe(29);
    expect(daysInMonth(2100, 1)).toBe(28);
    expect(daysInMonth(2000, 1)).toBe(29);
  });
});
