/** Credential positions (spec 5.2, D2, D2a), conflicts (D12) and malformed credentials (D9). */
import type { AdapterRequest } from '../../../adapters/types';
import { findCredential } from '../../../gateway/policy/credentials';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { parseQuery } from '../../../gateway/core/query';

const K1 = 'gk_' + 'a'.repeat(43);
const K2 = 'gk_' + 'b'.repeat(43);
const req = (headers: Record<string, string> = {}, query = ''): AdapterRequest => ({
  method: 'GET',
  path: '/v1/reverse',
  query,
  headers,
});
const basic = (user: string, pass = '') => 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');

describe('credential positions of rule set A (all six, D2)', () => {
  test.each([
    ['header X-API-Key', req({ 'x-api-key': K1 }), null],
    ['Authorization: Bearer', req({ authorization: `Bearer ${K1}` }), null],
    ['HTTP Basic, key as user', req({ authorization: basic(K1) }), null],
    ['query key', req({}, `lat=1&key=${K1}`), null],
    ['X-Goog-Api-Key (D2a)', req({ 'x-goog-api-key': K1 }), null],
    ['form body key (D2a)', req(), parseQuery(`key=${K1}`)],
  ])('finds the key in %s', (_n, r, form) => {
    expect(findCredential(r, RULE_SET_A.credentialPositions, [], form)).toMatchObject({
      kind: 'key',
      value: K1,
    });
  });
});

describe('rule set B positions (D2)', () => {
  test('accepts X-API-Key and query key', () => {
    expect(findCredential(req({ 'x-api-key': K1 }), RULE_SET_B.credentialPositions, [], null)).toMatchObject({
      kind: 'key',
    });
    expect(findCredential(req({}, `key=${K1}`), RULE_SET_B.credentialPositions, [], null)).toMatchObject({
      kind: 'key',
    });
  });
  test('ignores Bearer, Basic, X-Goog-Api-Key and form unless widened', () => {
    const r = req({ authorization: `Bearer ${K1}`, 'x-goog-api-key': K1 });
    expect(findCredential(r, RULE_SET_B.credentialPositions, [], parseQuery(`key=${K1}`))).toEqual({
      kind: 'none',
    });
    expect(findCredential(r, ['bearer'], [], null)).toMatchObject({ kind: 'key', value: K1 });
  });
});

describe('conflicts and malformed credentials (D12, D9)', () => {
  const all = RULE_SET_A.credentialPositions;
  test('different keys in two positions conflict and name both positions', () => {
    expect(findCredential(req({ 'x-api-key': K1 }, `key=${K2}`), all, [], null)).toEqual({
      kind: 'conflict',
      positions: ['header:x-api-key', 'query:key'],
    });
  });
  test('the same key twice is one credential', () => {
    expect(
      findCredential(req({ 'x-api-key': K1, authorization: `Bearer ${K1}` }, `key=${K1}`), all, [], null),
    ).toEqual({
      kind: 'key',
      value: K1,
      positions: ['header:x-api-key', 'header:authorization', 'query:key'],
    });
  });
  test('a provider position conflicting with a rule-set position', () => {
    const r = findCredential(
      req({ 'x-api-key': K1 }),
      all,
      [{ position: 'query:access_token', value: K2 }],
      null,
    );
    expect(r.kind).toBe('conflict');
  });
  test.each([
    ['not base64', 'Basic %%%'],
    ['no colon', 'Basic ' + Buffer.from(K1).toString('base64')],
    ['a password', basic(K1, 'secret')],
  ])('Basic header that is %s is malformed', (_n, h) => {
    expect(findCredential(req({ authorization: h }), all, [], null)).toEqual({
      kind: 'malformed',
      position: 'header:authorization',
    });
  });
  test('empty values are no credential', () => {
    expect(findCredential(req({ 'x-api-key': '' }, 'key='), all, [], null)).toEqual({ kind: 'none' });
  });
  test('an unknown Authorization scheme is ignored', () => {
    expect(findCredential(req({ authorization: 'Digest abc' }), all, [], null)).toEqual({ kind: 'none' });
  });
});
