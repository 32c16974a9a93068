/** Money on the pages (issue 15 item 3): balances to the minor unit, prices exact, per currency with Intl. */
import {
  creditPrice,
  formatBalance,
  formatExact,
  hasSubMinorRemainder,
  moneyUnit,
  type MoneyUnit,
} from '../../../dashboard/money';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';

const EUR4: MoneyUnit = { kind: 'currency', code: 'EUR', unitsPerMajor: 10_000 };
const cur = (code: string, unitsPerMajor: number): MoneyUnit => ({ kind: 'currency', code, unitsPerMajor });

describe('moneyUnit', () => {
  test('rule set A counts 0.0001 EUR per unit; B whole credits', () => {
    expect(moneyUnit(RULE_SET_A)).toEqual(EUR4);
    expect(moneyUnit(RULE_SET_B)).toEqual({ kind: 'credits' });
  });
});

describe('formatBalance', () => {
  test.each([
    [0, '€0.00'],
    [600_000, '€60.00'],
    [123_456, '€12.34'], // cut toward zero, never rounded up
    [99, '€0.00'],
    [2_900, '€0.29'], // 0.29 is not exact in binary: the decimal string keeps it
    [12_345_678_900, '€1,234,567.89'],
    [-5_000, '-€0.50'],
    [-99, '€0.00'],
  ])('%d units of 0.0001 EUR → %s', (units, text) => {
    expect(formatBalance(units, EUR4)).toBe(text);
  });

  test.each([
    [cur('USD', 100), 1_234, '$12.34'],
    [cur('JPY', 1), 1_234, '¥1,234'],
    [cur('JPY', 100), 123_456, '¥1,234'], // a unit finer than the yen: whole yen
    [cur('BHD', 10_000), 12_345, 'BHD 1.234'],
    [cur('GBP', 10_000), 5, '£0.00'],
  ])('other currencies: %j %d → %s', (unit, units, text) => {
    expect(formatBalance(units, unit).replace(/\u00a0/g, ' ')).toBe(text);
  });

  test('credits are whole numbers with grouping and a singular', () => {
    expect(formatBalance(5000, { kind: 'credits' })).toBe('5,000 credits');
    expect(formatBalance(1, { kind: 'credits' })).toBe('1 credit');
    expect(formatBalance(0, { kind: 'credits' })).toBe('0 credits');
  });
});

describe('formatExact (prices and ledger amounts)', () => {
  test.each([
    [1, '€0.0001'],
    [500_000, '€50.00'],
    [12_345, '€1.2345'],
    [12_340, '€1.234'],
    [-1, '-€0.0001'],
    [-500_000, '-€50.00'],
    [0, '€0.00'],
  ])('%d units → %s (never "0.0000 EUR")', (units, text) => {
    expect(formatExact(units, EUR4)).toBe(text);
  });

  test('a currency without minor units, and credits', () => {
    expect(formatExact(5, cur('JPY', 1))).toBe('¥5');
    expect(formatExact(1, { kind: 'credits' })).toBe('1 credit');
  });
});

describe('hasSubMinorRemainder', () => {
  test('true only when the cents hide a remainder', () => {
    expect(hasSubMinorRemainder(123_456, EUR4)).toBe(true);
    expect(hasSubMinorRemainder(123_400, EUR4)).toBe(false);
    expect(hasSubMinorRemainder(5, cur('USD', 100))).toBe(false);
    expect(hasSubMinorRemainder(5, { kind: 'credits' })).toBe(false);
  });
});

describe('creditPrice', () => {
  test.each([
    ['eur', 1, '€0.01'],
    ['eur', 4, '€0.0025'],
    ['eur', 100, '€0.0001'],
    ['usd', 2, '$0.005'],
  ])('%s, %d credits per minor unit → %s per credit', (code, per, text) => {
    expect(creditPrice(code, per)).toBe(text);
  });
});
