/** Store ids: a type prefix and 80 random bits from the CSPRNG ("acc_…", "key_…", "wl_…"); "led_…" and "adm_…" also carry the time. */
import { randomBytes } from 'node:crypto';

// Random bytes are drawn 4 KiB at a time: one CSPRNG call per ~400 ids keeps id creation off the hot path's profile.
let pool = Buffer.alloc(0);
let offset = 0;

/** 80 random bits as 20 hex digits. */
function random80(): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + 10);
  offset += 10;
  return hex;
}

/** A new opaque id with this prefix. */
export function newId(prefix: 'acc' | 'key' | 'wl' | 'wh' | 'dlv'): string {
  return `${prefix}_${random80()}`;
}

/**
 * A new opaque id that sorts by creation time: 12 hex digits of epoch milliseconds, then 80 random bits (36
 * characters with the prefix). For rows written on every request (ledger charges "led_…", admission plans "adm_…",
 * which are the ledger's refs and the in-flight log's key): a random id lands each insert on a random leaf of its
 * index, so every commit writes one more page per request to the WAL; ids in time order all land on the newest leaf
 * (issue 12). Still unique without coordination: the random part alone is a store id.
 */
export function newOrderedId(prefix: 'led' | 'adm' | 'rfd'): string {
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}${random80()}`;
}
