/**
 * API keys (D14, D28): `gk_` + 32 CSPRNG bytes in base62; only an HMAC-SHA-256 under the pepper is stored. The
 * random part is the secret and the prefix is presentation (D28): the same key can be shown Google-shaped, `AIza` +
 * the same 43 characters, because Google's official clients refuse keys that do not start with `AIza` before
 * sending anything. Every presentation hashes to the same stored hash: one key, one slot set, one counter.
 */
import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'gk_';
/** The Google-shaped presentation's prefix (D28): what Google's clients check before sending. */
export const GOOGLE_KEY_PREFIX = 'AIza';
/** 32 bytes = 256 bits; base62 needs 43 characters to hold them. */
const KEY_BODY_LENGTH = 43;
const NATIVE = /^gk_([0-9A-Za-z]{43})$/;
const GOOGLE = /^AIza([0-9A-Za-z]{43})$/;

/** Encode bytes as base62 of a fixed length (big-endian, left-padded with '0'). */
function base62(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

/** A new key value. Shown to its owner once and never stored. */
export function generateKey(): string {
  return KEY_PREFIX + base62(randomBytes(32), KEY_BODY_LENGTH);
}

/** The canonical (`gk_`) form of a key in any presentation, or null when the value is no key's shape. */
export function canonicalKey(value: string): string | null {
  if (value.length === KEY_PREFIX.length + KEY_BODY_LENGTH) return NATIVE.test(value) ? value : null;
  const google = value.length === GOOGLE_KEY_PREFIX.length + KEY_BODY_LENGTH ? GOOGLE.exec(value) : null;
  return google ? KEY_PREFIX + (google[1] as string) : null;
}

/** Whether a string has the shape of a key in one of its presentations (strict: "credential syntax", D9). */
export function isKeySyntax(value: string): boolean {
  return canonicalKey(value) !== null;
}

/** The stored form of a key: hex HMAC-SHA-256 of its canonical form under the pepper (one hash per key, D28). */
export function hashKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper)
    .update(canonicalKey(key) ?? key)
    .digest('hex');
}

/** The display prefix: the first 8 characters of the canonical form (D14), e.g. "gk_4Fz9q". */
export function keyPrefix(key: string): string {
  return (canonicalKey(key) ?? key).slice(0, 8);
}

/** The Google-shaped presentation of a key (D28): `AIza` + the same secret. */
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
