import { countryCodes, limit, searchText } from '../../../backend/http/params';

const q = (s: string): URLSearchParams => new URLSearchParams(s);
const known = (code: string): number => ['US', 'FR', 'PR'].indexOf(code);

describe('search parameter validation (400 invalid_parameter, parameter named)', () => {
  it.each([
    ['missing', ''],
    ['empty', 'q='],
    ['repeated', 'q=Paris&q=Lyon'],
    ['only punctuation and spaces', 'q=%20-!%3F%20'],
    ['longer than 200 characters', `q=${'a'.repeat(201)}`],
  ])('rejects q %s', (_name, query) => {
    const r = searchText(q(query), 'q');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'q' });
  });

  it('accepts q up to 200 characters and returns its normalised key', () => {
    expect(searchText(q('q=Z%C3%BCrich'), 'q')).toEqual({
      ok: true,
      value: { text: 'Zürich', key: 'zurich' },
    });
    expect(searchText(q(`q=${'a'.repeat(200)}`), 'q').ok).toBe(true);
  });

  it.each([
    ['empty', 'limit='],
    ['zero', 'limit=0'],
    ['above the maximum', 'limit=51'],
    ['leading zero', 'limit=05'],
    ['negative', 'limit=-1'],
    ['fraction', 'limit=1.5'],
    ['exponent', 'limit=1e1'],
    ['text', 'limit=ten'],
    ['repeated', 'limit=1&limit=2'],
  ])('rejects limit %s', (_name, query) => {
    const r = limit(q(query), 'limit', 10, 50);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ status: 400, parameter: 'limit' });
  });

  it('defaults limit when absent and accepts 1..50', () => {
    expect(limit(q(''), 'limit', 10, 50)).toEqual({ ok: true, value: 10 });
    expect(limit(q('limit=1'), 'limit', 10, 50)).toEqual({ ok: true, value: 1 });
    expect(limit(q('limit=50'), 'limit', 10, 50)).toEqual({ ok: true, value: 50 });
  });

  it.each([
    ['empty', 'countrycodes='],
    ['three letters', 'countrycodes=USA'],
    ['a digit', 'countrycodes=U1'],
    ['empty entry', 'countrycodes=us,,fr'],
    ['trailing comma', 'countrycodes=us,'],
    ['spaces', 'countrycodes=us,%20fr'],
    ['unknown code', 'countrycodes=us,xx'],
    ['repeated', 'countrycodes=us&countrycodes=fr'],
    ['more than 50 codes', `countrycodes=${Array(51).fill('us').join(',')}`],
  ])('rejects countrycodes %s', (_name, query) => {
    const r = countryCodes(q(query), 'countrycodes', known);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ status: 400, parameter: 'countrycodes' });
  });

  it('reads countrycodes in any case, upper-cases and deduplicates them; null when absent', () => {
    expect(countryCodes(q(''), 'countrycodes', known)).toEqual({ ok: true, value: null });
    expect(countryCodes(q('countrycodes=fr,US,pr,us'), 'countrycodes', known)).toEqual({
      ok: true,
      value: { codes: ['FR', 'US', 'PR'], index: [1, 0, 2] },
    });
  });
});
