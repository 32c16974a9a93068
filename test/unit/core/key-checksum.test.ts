import {
  CHECKSUMMED_KEY_PATTERN,
  canonicalKey,
  generateKey,
  googleKey,
  hashKey,
  isKeySyntax,
  isTestKey,
  keyPrefix,
  looksLikeGeogateKey,
} from '../../../gateway/core/keys';

/** Change one character of the random part (position i after the prefix) to another base62 character. */
function flip(key: string, i: number): string {
  const c = key[i] === 'a' ? 'b' : 'a';
  return key.slice(0, i) + c + key.slice(i + 1);
}

describe('key checksums (D39)', () => {
  it('recognises a new key in every presentation, offline', () => {
    const key = generateKey();
    expect(looksLikeGeogateKey(key)).toBe(true);
    expect(looksLikeGeogateKey(`  ${googleKey(key)}\n`)).toBe(true);
    const test = generateKey({ test: true });
    expect(looksLikeGeogateKey(test)).toBe(true);
    expect(looksLikeGeogateKey(googleKey(test))).toBe(true);
  });

  it('tells a key from random text of the same shape: a changed character or checksum fails', () => {
    const key = generateKey();
    for (const i of [3, 20, 45, 50]) expect(looksLikeGeogateKey(flip(key, i))).toBe(false);
    // 1,000 random bodies with a made-up tail of the right length: none passes (odds 1 in 2^32 each).
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let passed = 0;
    for (let n = 0; n < 1000; n++) {
      let body = '';
      for (let i = 0; i < 49; i++) body += alphabet[Math.floor(Math.random() * 62)];
      if (looksLikeGeogateKey('gk_' + body)) passed++;
    }
    expect(passed).toBe(0);
    expect(looksLikeGeogateKey('hello world')).toBe(false);
    expect(looksLikeGeogateKey('')).toBe(false);
  });

  it('keeps keys made before checksums valid, though a scanner cannot vouch for them', () => {
    const old = 'gk_' + 'A1b2C3d4E5'.repeat(4) + 'xyz';
    expect(old).toHaveLength(46);
    expect(isKeySyntax(old)).toBe(true);
    expect(canonicalKey('AIza' + old.slice(3))).toBe(old);
    expect(looksLikeGeogateKey(old)).toBe(false);
  });

  it('refuses a checksummed shape whose checksum is wrong as a credential too (invalid_key before any lookup)', () => {
    expect(isKeySyntax(flip(generateKey(), 10))).toBe(false);
  });

  it('finds keys inside a longer text with the exported pattern', () => {
    const a = generateKey();
    const b = googleKey(generateKey({ test: true }));
    const text = `config:\n  key: "${a}"\n  other=${b};\n  not: gk_${'x'.repeat(60)}`;
    const found = [...text.matchAll(CHECKSUMMED_KEY_PATTERN)].map((m) => m[0]);
    expect(found).toEqual([a, b]);
    expect(found.every(looksLikeGeogateKey)).toBe(true);
  });
});

describe('test keys (D40)', () => {
  it('are marked in every presentation and hash the same in each', () => {
    const key = generateKey({ test: true });
    expect(key).toMatch(/^gk_test_[0-9A-Za-z]{49}$/);
    expect(googleKey(key)).toMatch(/^AIzatest_[0-9A-Za-z]{49}$/);
    expect(isTestKey(key)).toBe(true);
    expect(isTestKey(googleKey(key))).toBe(true);
    expect(isTestKey(generateKey())).toBe(false);
    expect(hashKey(googleKey(key), 'p')).toBe(hashKey(key, 'p'));
    expect(keyPrefix(key)).toBe(key.slice(0, 13));
    expect(keyPrefix(key)).toMatch(/^gk_test_/);
  });

  it('the live key with the same random part is another key (another hash)', () => {
    const key = generateKey({ test: true });
    const live = 'gk_' + key.slice('gk_test_'.length);
    expect(isKeySyntax(live)).toBe(true);
    expect(hashKey(live, 'p')).not.toBe(hashKey(key, 'p'));
  });
});

describe('the checksum is CRC-32 (IEEE), as zlib computes it', () => {
  it('agrees with node:zlib on keys', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { crc32 } = require('node:zlib') as { crc32(s: string): number };
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (let n = 0; n < 50; n++) {
      const key = generateKey();
      const random = key.slice(3, 46);
      let v = crc32(random);
      let tail = '';
      for (let i = 0; i < 6; i++) {
        tail = alphabet[v % 62] + tail;
        v = Math.floor(v / 62);
      }
      expect(key.slice(46)).toBe(tail);
    }
  });
});
