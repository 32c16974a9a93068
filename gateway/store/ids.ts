/** Store ids: a type prefix and 80 random bits from the CSPRNG ("acc_…", "key_…", "wl_…", "led_…"). */
import { randomBytes } from 'node:crypto';

// Random bytes are drawn 4 KiB at a time: one CSPRNG call per ~400 ids keeps id creation off the hot path's profile.
let pool = Buffer.alloc(0);
let offset = 0;

/** A new opaque id with this prefix. */
export function newId(prefix: 'acc' | 'key' | 'wl' | 'led'): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + 10);
  offset += 10;
  return `${prefix}_${hex}`;
}
