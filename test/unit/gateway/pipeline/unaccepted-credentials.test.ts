/** Keys sent where the deployment reads none (spec 5.6 item 4, issue 13 item 12): found, so they never fall back. */
import type { AdapterRequest } from '../../../../adapters/types';
import { parseQuery } from '../../../../gateway/core/query';
import { findCredential, positionNames, unacceptedKeyPosition } from '../../../../gateway/policy/credentials';
import { RULE_SET_A, RULE_SET_B } from '../../../../gateway/policy/ruleset';

const K = 'gk_' + 'a'.repeat(43);
const req = (headers: Record<string, string> = {}, query = ''): AdapterRequest => ({
  method: 'GET',
  path: '/v1/reverse',
  query,
  headers,
});
const basic = 'Basic ' + Buffer.from(`${K}:`).toString('base64');
const B = RULE_SET_B.credentialPositions;

describe('rule set B (X-API-Key and query key accepted, D2)', () => {
  test.each([
    ['Authorization: Bearer', req({ authorization: `Bearer ${K}` }), null, 'bearer'],
    ['HTTP Basic', req({ authorization: basic }), null, 'basic'],
    ['a malformed HTTP Basic', req({ authorization: 'Basic %%%' }), null, 'basic'],
    ['X-Goog-Api-Key', req({ 'x-goog-api-key': K }), null, 'x-goog-api-key'],
    ['a form body key', req(), parseQuery(`lat=1&key=${K}`), 'form-key'],
    [
      'a revoked or unknown value of any shape',
      req({ authorization: 'Bearer not-even-a-key' }),
      null,
      'bearer',
    ],
  ])('%s is a key in a position B does not accept', (_n, r, form, position) => {
    expect(findCredential(r, B, [], form)).toEqual({ kind: 'none' }); // unchanged: it is no credential
    expect(unacceptedKeyPosition(r, B, form)).toBe(position);
  });

  test.each([
    ['nothing', req(), null],
    ['empty values', req({ 'x-goog-api-key': '' }), parseQuery('key=')],
    ['an unknown Authorization scheme', req({ authorization: 'Digest abc' }), null],
    ['a form without key', req(), parseQuery('lat=1&lon=2')],
  ])('%s is no key anywhere', (_n, r, form) => {
    expect(unacceptedKeyPosition(r, B, form)).toBeNull();
  });

  test('accepted positions are never reported, whatever they carry', () => {
    expect(unacceptedKeyPosition(req({ 'x-api-key': K }, `key=${K}`), B, null)).toBeNull();
  });
});

describe('rule set A', () => {
  test('accepts all six positions by default, so no key is ever in an unaccepted one', () => {
    const all = req({ authorization: `Bearer ${K}`, 'x-goog-api-key': K, 'x-api-key': K }, `key=${K}`);
    expect(unacceptedKeyPosition(all, RULE_SET_A.credentialPositions, parseQuery(`key=${K}`))).toBeNull();
  });
  test('narrowed by credentials.accept, it is as strict as B', () => {
    expect(unacceptedKeyPosition(req({}, `lat=1&k%65y=${K}`), ['x-api-key'], null)).toBe('query-key');
  });
});

test('positions in words', () => {
  expect(positionNames(['x-api-key'])).toBe('the X-API-Key header');
  expect(positionNames(B)).toBe('the X-API-Key header or the "key" query parameter');
  expect(positionNames(['x-api-key', 'bearer', 'basic'])).toBe(
    'the X-API-Key header, Authorization: Bearer or HTTP Basic authentication',
  );
});
