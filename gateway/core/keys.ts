/**
 * API keys (D14, D28, D39, D40): `gk_` + 32 CSPRNG bytes in base62 (43 characters) + a 6-character checksum (D39);
 * only an HMAC-SHA-256 under the pepper is stored. The random part is the secret and the prefix is presentation (D28):
 * the same key can be shown Google-shaped, `AIza` + the same characters, because Google's official clients refuse
 * keys that do not start with `AIza` before sending anything. Every presentation hashes to the same stored hash: one
 * key, one slot set, one counter. Test keys (D40) carry `test_` after the presentation prefix (`gk_test_…`,
 * `AIzatest_…`), so they cannot be mistaken for live keys wherever they are pasted.
 */
import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'gk_';
/** The Google-shaped presentation's prefix (D28): what Google's clients check before sending. */
export const GOOGLE_KEY_PREFIX = 'AIza';
/** What follows the presentation prefix in a test key (D40). */
export const TEST_MARK = 'test_';
/** 32 bytes = 256 bits; base62 needs 43 characters to hold them. */
const RANDOM_LENGTH = 43;
/** D39: CRC32 of the random part in base62 (2^32 < 62^6). */
const CHECKSUM_LENGTH = 6;
const BODY = `([0-9A-Za-z]{${RANDOM_LENGTH}}|[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}})`;
const NATIVE = new RegExp(`^gk_(${TEST_MARK})?${BODY}$`);
const GOOGLE = new RegExp(`^AIza(${TEST_MARK})?${BODY}$`);
/** Any presentation of a key with a checksum (D39), for scanners: a token of its own in a longer text. */
export const CHECKSUMMED_KEY_PATTERN = new RegExp(
  `(?<![0-9A-Za-z_])(?:gk_|AIza)(?:${TEST_MARK})?[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}(?![0-9A-Za-z_])`,
  'g',
);

/** Encode a non-negative integer as base62 of a fixed length (big-endian, left-padded with '0'). */
function base62(value: bigint, length: number): string {
  let n = value;
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

/** The CRC-32 table (IEEE 802.3, as zlib's crc32), built once. */
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** CRC-32 of an ASCII string (a key's base62 characters), unsigned; no buffer is made for it. */
function crc32(text: string): number {
  let c = -1;
  for (let i = 0; i < text.length; i++)
    c = (CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** D39: the checksum of a key's random part. */
function checksum(random: string): string {
  return base62(BigInt(crc32(random)), CHECKSUM_LENGTH);
}

/**
 * Whether a 49-character body ends with the checksum of its first 43 characters. On the request path (credential
 * syntax, D9): the checksum is decoded as a number and compared with the CRC, no BigInt, buffer or string built.
 */
function checksumHolds(body: string): boolean {
  let n = 0;
  for (let i = RANDOM_LENGTH; i < body.length; i++) n = n * 62 + ALPHABET.indexOf(body[i] as string);
  let c = -1;
  for (let i = 0; i < RANDOM_LENGTH; i++)
    c = (CRC_TABLE[(c ^ body.charCodeAt(i)) & 0xff] as number) ^ (c >>> 8);
  return n === (c ^ -1) >>> 0;
}

/** A new key value (a test key with `test`). Shown to its owner once and never stored. */
export function generateKey(opts: { test?: boolean } = {}): string {
  const random = base62(BigInt('0x' + randomBytes(32).toString('hex')), RANDOM_LENGTH);
  return KEY_PREFIX + (opts.test === true ? TEST_MARK : '') + random + checksum(random);
}

/**
 * The canonical (`gk_`) form of a key in any presentation, or null when the value is no key's shape. A body of 49
 * characters must carry its checksum (D39); a body of 43 is a key made before checksums (still valid).
 */
export function canonicalKey(value: string): string | null {
  const m = value.startsWith(KEY_PREFIX) ? NATIVE.exec(value) : GOOGLE.exec(value);
  if (m === null) return null;
  const body = m[2] as string;
  if (body.length !== RANDOM_LENGTH && !checksumHolds(body)) return null;
  return value.startsWith(KEY_PREFIX) ? value : KEY_PREFIX + (m[1] ?? '') + body;
}

/** Whether a string has the shape of a key in one of its presentations (strict: "credential syntax", D9). */
export function isKeySyntax(value: string): boolean {
  return canonicalKey(value) !== null;
}

/**
 * D39: whether `text` (surrounding blanks ignored) is a geogate key with a valid checksum, in any presentation.
 * Offline and exact for new keys: random text passes with odds of 1 in 2^32. Keys made before checksums do not pass.
 */
export function looksLikeGeogateKey(text: string): boolean {
  const canonical = canonicalKey(text.trim());
  return canonical !== null && hasChecksum(canonical);
}

/** Whether a canonical key carries a checksum (D39). */
function hasChecksum(canonical: string): boolean {
  const body = canonical.slice(canonical.startsWith(KEY_PREFIX + TEST_MARK) ? 8 : 3);
  return body.length === RANDOM_LENGTH + CHECKSUM_LENGTH;
}

/** Whether a key (any presentation) is a test key (D40). */
export function isTestKey(value: string): boolean {
  return (canonicalKey(value) ?? '').startsWith(KEY_PREFIX + TEST_MARK);
}

/** The stored form of a key: hex HMAC-SHA-256 of its canonical form under the pepper (one hash per key, D28). */
export function hashKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper)
    .update(canonicalKey(key) ?? key)
    .digest('hex');
}

/** How many presented key values `presentedKeyHash` remembers (then it starts again: memory stays bounded). */
const PRESENTED_MAX = 10_000;
let presented = new Map<string, string>();
let presentedPepper = '';

/**
 * The stored form of a key value as a request presents it, or null when the value is no key's shape (D9's syntax
 * check and D28's hash in one step). On the request path: the hash of a value seen before is remembered (at most
 * PRESENTED_MAX values, per pepper), so a client's repeated calls pay neither the syntax check nor the HMAC again.
 * The values live only in this process's memory, as they already do while a request is read; never logged.
 */
export function presentedKeyHash(value: string, pepper: string): string | null {
  if (pepper !== presentedPepper) {
    presented = new Map();
    presentedPepper = pepper;
  }
  const known = presented.get(value);
  if (known !== undefined) return known;
  const canonical = canonicalKey(value);
  if (canonical === null) return null;
  const hash = createHmac('sha256', pepper).update(canonical).digest('hex');
  if (presented.size >= PRESENTED_MAX) presented.clear();
  presented.set(value, hash);
  return hash;
}

/**
 * The display prefix: the first 8 characters of the canonical form (D14), e.g. "gk_4Fz9q"; a test key's shows 5
 * characters after its mark, "gk_test_4Fz9q", so test keys are told apart from each other and from live keys.
 */
export function keyPrefix(key: string): string {
  const canonical = canonicalKey(key) ?? key;
  return canonical.slice(0, canonical.startsWith(KEY_PREFIX + TEST_MARK) ? 13 : 8);
}

/** The Google-shaped presentation of a key (D28): `AIza` + the same secret (`AIzatest_…` for a test key). */
export function googleKey(key: string): string {
  const canonical = canonicalKey(key);
  if (canonical === null) throw new Error('not a key');
  return GOOGLE_KEY_PREFIX + canonical.slice(KEY_PREFIX.length);
}

/** Every presentation of a new key, for the accounts layer to show once at creation (D28). */
export interface KeyPresentations {
  /** The native form, `gk_…`. */
  key: string;
  /** The Google-shaped form, `AIza…` (Google's official clients accept only this shape). */
  google: string;
}

/** The presentations of a key, to show with it at creation (dashboard, admin API, CLI). */
export function keyPresentations(key: string): KeyPresentations {
  return { key, google: googleKey(key) };
}
