/** D11 as one pure table: every backend outcome → keep or release, and what the client is answered. */
import type { BackendOutcome } from '../../../../gateway/http/backend';
import { D11, answerKind, settlementFor, type AnswerKind } from '../../../../gateway/http/settlement';

const body = Buffer.from('{}');
const answer = (status: number): BackendOutcome => ({ kind: 'answer', status, body });

describe('settlementFor: keep-or-release after the backend answers (D11)', () => {
  test.each<[string, BackendOutcome, boolean, AnswerKind, boolean, string | null]>([
    ['200 rendered', answer(200), true, 'record', true, 'record'],
    [
      '200 not renderable (issue 13 item 11)',
      answer(200),
      false,
      'unrenderable',
      false,
      'backend_unavailable',
    ],
    ['404 no result found', answer(404), false, 'no_result', true, 'not_found'],
    ['400 malformed', answer(400), false, 'rejected', false, 'invalid_parameter'],
    ['500', answer(500), false, 'failed', false, 'backend_unavailable'],
    ['502', answer(502), false, 'failed', false, 'backend_unavailable'],
    ['503', answer(503), false, 'failed', false, 'backend_unavailable'],
    ['204 (not a record answer)', answer(204), false, 'failed', false, 'backend_unavailable'],
    ['401 from the backend', answer(401), false, 'failed', false, 'backend_unavailable'],
    ['timeout', { kind: 'timeout' }, false, 'timeout', false, 'backend_timeout'],
    [
      'connection failure',
      { kind: 'unavailable', reason: 'ECONNRESET' },
      false,
      'unavailable',
      false,
      'backend_unavailable',
    ],
    ['client gone', { kind: 'client_gone' }, false, 'client_gone', false, null],
  ])('%s → %s', (_name, outcome, rendered, kind, keep, reply) => {
    expect(answerKind(outcome, rendered)).toBe(kind);
    const s = settlementFor(outcome, rendered);
    expect({ kind: s.kind, keep: s.keep, reply: s.reply }).toEqual({ kind, keep, reply });
  });

  test('"rendered" only matters for a 200: a 404 or a 500 is decided by its status alone', () => {
    expect(settlementFor(answer(404), true)).toBe(settlementFor(answer(404), false));
    expect(settlementFor(answer(500), true)).toBe(settlementFor(answer(500), false));
  });

  test('only answers the backend gave are kept: a rendered record and "no result found"', () => {
    const kept = Object.values(D11)
      .filter((s) => s.keep)
      .map((s) => s.kind)
      .sort();
    expect(kept).toEqual(['no_result', 'record']);
  });

  test('every row is keyed by its own kind, and every error reply has a public detail', () => {
    for (const [kind, s] of Object.entries(D11)) {
      expect(s.kind).toBe(kind);
      if (s.reply !== null && s.reply !== 'record') expect(s.detail).not.toBe('');
    }
  });

  test('the table is frozen: no request can change D11 for the next', () => {
    expect(Object.isFrozen(D11)).toBe(true);
    expect(Object.isFrozen(D11.record)).toBe(true);
  });
});
