import { generateKey, hashKey, isKeySyntax, keyPrefix } from '../../../gateway/core/keys';

describe('API keys (D14)', () => {
  it('generates gk_ + 43 base62 characters and a 6-character checksum that pass the syntax check and differ every time', () => {
    const a = generateKey();
    const b = generateKey();
    expect(a).toMatch(/^gk_[0-9A-Za-z]{49}$/);
    expect(isKeySyntax(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('rejects keys of the wrong shape', () => {
    expect(isKeySyntax('gk_short')).toBe(false);
    expect(isKeySyntax('xx_' + 'a'.repeat(43))).toBe(false);
    expect(isKeySyntax('gk_' + 'a'.repeat(42) + '-')).toBe(false);
  });

  it('stores only an HMAC that depends on the pepper, and shows the first 8 characters', () => {
    const key = generateKey();
    expect(hashKey(key, 'p1')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key, 'p1')).toBe(hashKey(key, 'p1'));
    expect(hashKey(key, 'p1')).not.toBe(hashKey(key, 'p2'));
    expect(keyPrefix(key)).toBe(key.slice(0, 8));
  });
});
