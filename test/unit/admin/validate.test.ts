import { AdminProblem } from '../../../gateway/admin/problem';
import * as v from '../../../gateway/admin/validate';

function paramOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof AdminProblem && err.status === 400) return err.parameter;
    throw err;
  }
  throw new Error('expected a 400');
}

const NOW = Date.parse('2026-06-15T12:00:00Z');

describe('admin field validation', () => {
  it.each(['ops@example.com', 'First.Last+tag@mail.example.co.uk', "o'brien@example.org"])(
    'accepts e-mail %s',
    (e) => {
      expect(v.email(` ${e} `)).toBe(e);
    },
  );

  it.each([
    '',
    'plain',
    'a@b',
    'a@@example.com',
    'a b@example.com',
    '.a@example.com',
    'a..b@example.com',
    'a@-x.com',
    'a@example.c',
    `${'x'.repeat(65)}@example.com`,
    5,
    undefined,
  ])('refuses e-mail %p naming email', (e) => {
    expect(paramOf(() => v.email(e))).toBe('email');
  });

  it('refuses passwords shorter than 12 characters and counts code points', () => {
    expect(paramOf(() => v.password('elevenchars'))).toBe('password');
    expect(v.password('twelve chars')).toBe('twelve chars');
    expect(paramOf(() => v.password('\u{1F600}'.repeat(11)))).toBe('password');
    expect(paramOf(() => v.password(123456789012))).toBe('password');
  });

  it('refuses names and labels that are empty, too long or hold control characters', () => {
    expect(paramOf(() => v.name('   '))).toBe('name');
    expect(paramOf(() => v.name('x'.repeat(201)))).toBe('name');
    expect(paramOf(() => v.label('a\nb'))).toBe('label');
    expect(paramOf(() => v.label(7))).toBe('label');
    expect(v.label('  prod server  ')).toBe('prod server');
  });

  it('reads future ISO 8601 date-times with a zone and refuses others', () => {
    expect(v.futureDateTime('until', '2026-07-01T00:00:00Z', NOW)).toBe(Date.parse('2026-07-01T00:00:00Z'));
    expect(v.futureDateTime('until', '2026-07-01T02:00:00+02:00', NOW)).toBe(
      Date.parse('2026-07-01T00:00:00Z'),
    );
    for (const bad of [
      '2026-07-01',
      '2026-07-01T00:00:00',
      '2026-02-30T00:00:00Z',
      '2026-06-15T12:00:00Z',
      '2020-01-01T00:00:00Z',
      'tomorrow',
      1_800_000_000_000,
    ]) {
      expect(paramOf(() => v.futureDateTime('until', bad, NOW))).toBe('until');
    }
  });

  it('reads UTC days and refuses impossible ones', () => {
    expect(v.day('from', '2028-02-29')).toBe('2028-02-29');
    for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-1-01', '20260101']) {
      expect(paramOf(() => v.day('from', bad))).toBe('from');
    }
  });

  it('refuses unknown body fields by name and non-object bodies as body', () => {
    expect(v.parseBody({ label: 'x' }, ['label'])).toEqual({ label: 'x' });
    expect(v.parseBody(undefined, ['label'])).toEqual({});
    expect(paramOf(() => v.parseBody({ label: 'x', colour: 'red' }, ['label']))).toBe('colour');
    expect(paramOf(() => v.parseBody([1], ['label']))).toBe('body');
    expect(paramOf(() => v.parseBody('x', ['label']))).toBe('body');
    expect(paramOf(() => v.parseBody(null, ['label']))).toBe('body');
  });

  it('checks Idempotency-Key values', () => {
    expect(v.idempotencyKey(undefined)).toBeNull();
    expect(v.idempotencyKey('order-42')).toBe('order-42');
    expect(paramOf(() => v.idempotencyKey(''))).toBe('Idempotency-Key');
    expect(paramOf(() => v.idempotencyKey('has space'))).toBe('Idempotency-Key');
    expect(paramOf(() => v.idempotencyKey('x'.repeat(201)))).toBe('Idempotency-Key');
  });
});
