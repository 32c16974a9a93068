import fc from 'fast-check';
import { AdminProblem } from '../../../gateway/admin/problem';
import { amount } from '../../../gateway/admin/validate';
import { money } from '../../../gateway/admin/views';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';

function refusal(fn: () => unknown): AdminProblem {
  try {
    fn();
  } catch (err) {
    if (err instanceof AdminProblem) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('credit amounts (D16)', () => {
  it.each([
    ['50', 500_000],
    ['12.5', 125_000],
    ['0.0001', 1],
    ['12.3456', 123_456],
    ['00012.30', 123_000],
    ['99999999999.9999', 999_999_999_999_999],
  ])('rule set A reads "%s" EUR as %d units', (input, units) => {
    expect(amount(RULE_SET_A, input)).toBe(units);
  });

  it.each([
    ['a number', 12.5],
    ['five decimals', '0.00001'],
    ['zero', '0'],
    ['zero with decimals', '0.0000'],
    ['a sign', '+5'],
    ['a negative amount', '-5'],
    ['an exponent', '1e3'],
    ['a comma', '1,50'],
    ['a trailing dot', '5.'],
    ['a leading dot', '.5'],
    ['spaces', ' 5'],
    ['too many digits', '123456789012'],
    ['empty', ''],
    ['missing', undefined],
    ['null', null],
  ])('rule set A refuses %s with 400 naming amount', (_name, input) => {
    const p = refusal(() => amount(RULE_SET_A, input));
    expect(p.status).toBe(400);
    expect(p.parameter).toBe('amount');
  });

  it.each([
    [100, 100],
    ['100', 100],
    [1, 1],
  ])('rule set B reads %p as %d credits', (input, credits) => {
    expect(amount(RULE_SET_B, input)).toBe(credits);
  });

  it.each([
    ['zero', 0],
    ['a fraction', 1.5],
    ['a decimal string', '1.0'],
    ['a negative number', -3],
    ['an exponent string', '1e3'],
    ['a huge number', 1e21],
    ['a sign', '+3'],
    ['a boolean', true],
    ['unsafe integer', '9007199254740993'],
  ])('rule set B refuses %s with 400 naming amount', (_name, input) => {
    const p = refusal(() => amount(RULE_SET_B, input));
    expect(p.status).toBe(400);
    expect(p.parameter).toBe('amount');
  });

  it('shows balances as a 4-decimal EUR string (A) and whole credits (B)', () => {
    expect(money(RULE_SET_A, 123_456)).toBe('12.3456');
    expect(money(RULE_SET_A, 1)).toBe('0.0001');
    expect(money(RULE_SET_A, 0)).toBe('0.0000');
    expect(money(RULE_SET_B, 42)).toBe(42);
  });

  it('reads back every A balance it shows (format → parse is the identity on positive units)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), (units) => {
        expect(amount(RULE_SET_A, money(RULE_SET_A, units))).toBe(units);
      }),
    );
  });

  it('never accepts a non-positive or fractional B amount', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (x) => {
        let accepted: number | null = null;
        try {
          accepted = amount(RULE_SET_B, x);
        } catch (err) {
          expect(err).toBeInstanceOf(AdminProblem);
        }
        if (accepted !== null) {
          expect(Number.isSafeInteger(accepted) && accepted > 0 && accepted === x).toBe(true);
        }
      }),
    );
  });
});
