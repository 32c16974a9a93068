/** D28: every key has a Google-shaped presentation (AIza + the same secret) that is the same key: one hash, one prefix. */
import {
  canonicalKey,
  generateKey,
  googleKey,
  hashKey,
  isKeySyntax,
  keyPrefix,
  keyPresentations,
} from '../../../gateway/core/keys';
import { findCredential } from '../../../gateway/policy/credentials';

describe('provider-shaped keys (D28)', () => {
  it('presents a key as AIza + the same 43 characters', () => {
    const key = generateKey();
    const g = googleKey(key);
    expect(g).toMatch(/^AIza[0-9A-Za-z]{49}$/);
    expect(g.slice(4)).toBe(key.slice(3));
    expect(keyPresentations(key)).toEqual({ key, google: g });
  });

  it('recognises both presentations as one key: same canonical form, same hash, same display prefix', () => {
    const key = generateKey();
    const g = googleKey(key);
    expect(isKeySyntax(g)).toBe(true);
    expect(canonicalKey(g)).toBe(key);
    expect(hashKey(g, 'pepper')).toBe(hashKey(key, 'pepper'));
    expect(keyPrefix(g)).toBe(keyPrefix(key));
    expect(googleKey(g)).toBe(g);
  });

  it('refuses other shapes, including real-length Google keys and near misses', () => {
    expect(canonicalKey('AIza' + 'a'.repeat(35))).toBeNull(); // a real Google key is not a geogate key
    expect(canonicalKey('AIzb' + 'a'.repeat(43))).toBeNull();
    expect(canonicalKey('AIza' + 'a'.repeat(42) + '-')).toBeNull();
    expect(isKeySyntax('aiza' + 'a'.repeat(43))).toBe(false);
    expect(() => googleKey('not-a-key')).toThrow('not a key');
  });
});

describe('credentials in two presentations (D12, D28)', () => {
  it('are one key, not conflicting credentials; two different keys still conflict', () => {
    const key = generateKey();
    const request = (query: string) => ({
      method: 'GET',
      path: '/v1/reverse',
      query,
      headers: { 'x-api-key': key },
    });
    const same = findCredential(request(`key=${googleKey(key)}`), ['x-api-key', 'query-key'], [], null);
    expect(same.kind).toBe('key');
    expect(same.kind === 'key' && hashKey(same.value, 'p')).toBe(hashKey(key, 'p'));
    const other = findCredential(
      request(`key=${googleKey(generateKey())}`),
      ['x-api-key', 'query-key'],
      [],
      null,
    );
    expect(other.kind).toBe('conflict');
  });
});
