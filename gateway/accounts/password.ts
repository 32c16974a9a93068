/**
 * Account passwords (rule set A's dashboard login): scrypt, memory-hard, encoded `scrypt$N$r$p$salt$hash`
 * (salt and hash in base64). Used by the admin API and the dashboard.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Fewest characters a password may have (docs/decisions.md). */
export const PASSWORD_MIN_LENGTH = 12;
/** Most characters: bounds the hashing work an attacker can ask for. */
export const PASSWORD_MAX_LENGTH = 1024;

/** scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is exactly that, so leave headroom. */
function options(n: number, r: number, p: number): ScryptOptions {
  return { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
}

function derive(
  password: string,
  salt: Buffer,
  n: number,
  r: number,
  p: number,
  len: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, len, options(n, r, p), (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Hash a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, N, R, P, HASH_BYTES);
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

const ENCODED = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{1,200})\$([A-Za-z0-9+/=]{1,200})$/;

/** Whether `password` matches a stored `scrypt$…` hash (constant-time compare); false for malformed hashes. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = ENCODED.exec(encoded);
  if (!m) return false;
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Refuse parameters no hash of ours has, so a tampered row cannot make us burn memory or CPU.
  if (n < 2 || n > 2 ** 20 || (n & (n - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const salt = Buffer.from(m[4] ?? '', 'base64');
  const expected = Buffer.from(m[5] ?? '', 'base64');
  if (salt.length < 8 || expected.length < 16) return false;
  const actual = await derive(password, salt, n, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}
