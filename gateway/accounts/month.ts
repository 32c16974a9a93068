/** Calendar-month arithmetic for Unlimited packages (D17): "valid one calendar month from purchase". */

/** Days in a month of a year (month 0..11), in UTC. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * The same UTC time of day one calendar month later. When the next month is shorter, the day is clamped to its
 * last day: 2026-01-31T10:00Z → 2026-02-28T10:00Z, 2028-01-31 → 2028-02-29, 2026-03-31 → 2026-04-30.
 */
export function addCalendarMonth(ms: number): number {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  const targetYear = year + Math.floor(month / 12);
  const targetMonth = month % 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(targetYear, targetMonth));
  return Date.UTC(
    targetYear,
    targetMonth,
    day,
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}
