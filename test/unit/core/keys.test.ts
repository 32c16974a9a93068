import {
  generateKey,
  googleKey,
  hashKey,
  isKeySyntax,
  keyPrefix,
  presentedKeyHash,
} from '../../../gateway/core/keys';

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

  it('hashes a presented value as hashKey does, in every presentation, and refuses what is no key, remembered or not', () => {
    const key = generateKey();
    for (let round = 0; round < 2; round++) {
      expect(presentedKeyHash(key, 'p1')).toBe(hashKey(key, 'p1'));
      expect(presentedKeyHash(googleKey(key), 'p1')).toBe(hashKey(key, 'p1'));
      expect(presentedKeyHash('gk_short', 'p1')).toBeNull();
      // A checksummed body with one character changed is no key, even right after the real one was remembered.
      const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      expect(presentedKeyHash(flipped, 'p1')).toBeNull();
    }
    // Another pepper (another gate in the process) never gets the first pepper's remembered hash.
    expect(presentedKeyHash(key, 'p2')).toBe(hashKey(key, 'p2'));
    expect(presentedKeyHash(key, 'p1')).toBe(hashKey(key, 'p1'));
  });

  it('stays right past its bound (10,000 remembered values): the oldest are forgotten, never confused', () => {
    const keys = Array.from({ length: 10_050 }, () => generateKey());
    for (const k of keys) expect(presentedKeyHash(k, 'p-bound')).toBe(hashKey(k, 'p-bound'));
    for (const k of keys.slice(0, 60)) expect(presentedKeyHash(k, 'p-bound')).toBe(hashKey(k, 'p-bound'));
  });
});
