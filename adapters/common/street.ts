/**
 * Street-level fields of a record (issue 10 item 2): connectors of Nominatim, Photon and Pelias fill them, our own
 * backend never does, so every renderer shows them only when they are there and answers as before otherwise.
 */
import type { ReverseRecord } from '../../backend/records';

/** The street, or null. */
export function streetOf(r: ReverseRecord): string | null {
  return r.street ?? null;
}

/** The house number, shown only with its street (a number alone names nothing). */
export function houseNumberOf(r: ReverseRecord): string | null {
  return r.street ? (r.houseNumber ?? null) : null;
}

/** The part of the locality (suburb, district), or null. */
export function suburbOf(r: ReverseRecord): string | null {
  return r.suburb ?? null;
}

/** "71 Via Guglielmo Marconi" (number first, as most providers' address lines), the street alone, or null. */
export function streetLine(r: ReverseRecord): string | null {
  const street = streetOf(r);
  if (street === null) return null;
  const n = houseNumberOf(r);
  return n === null ? street : `${n} ${street}`;
}

/** Whether the record is at street level (a street, with or without a house number). */
export function isStreetLevel(r: ReverseRecord): boolean {
  return streetOf(r) !== null;
}
