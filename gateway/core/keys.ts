/** API keys (D14): `gk_` + 32 CSPRNG bytes in base62; only an HMAC-SHA-256 under the pepper is stored. */
import { createHmac, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'gk_';
/** 32 bytes = 256 bits; base62 needs 43 characters to hold them. */
const KEY_BODY_LENGTH = 43;

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

/** Whether a string has the shape of a key (strict: used for "credential syntax", D9). */
export function isKeySyntax(value: string): boolean {
  return value.length === KEY_PREFIX.length + KEY_BODY_LENGTH && /^gk_[0-9A-Za-z]{43}$/.test(value);
}

/** The stored form of a key: hex HMAC-SHA-256 under the server-side pepper. */
export function hashKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

/** The display prefix: the first 8 characters (D14), e.g. "gk_4Fz9q". */
export function keyPrefix(key: string): string {
  return key.slice(0, 8);
}
