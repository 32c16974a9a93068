/** Key restrictions in the key row (migration 004): canonical JSON text, written and read the same by both stores. */
import { isRestricted, normaliseRestrictions, RestrictionError } from '../policy/restrictions';
import { StoreConflict, type KeyRestrictions } from './types';

/** The column value to store for `input`: canonical JSON, or null for none. Malformed → StoreConflict('invalid_input'). */
export function restrictionsColumn(input: KeyRestrictions | null): string | null {
  if (input === null) return null;
  let canonical: KeyRestrictions;
  try {
    canonical = normaliseRestrictions(input);
  } catch (err) {
    if (err instanceof RestrictionError) throw new StoreConflict('invalid_input', err.message);
    throw err;
  }
  return isRestricted(canonical) ? JSON.stringify(canonical) : null;
}

/** The restrictions of a stored column value (written by restrictionsColumn). */
export function readRestrictions(value: unknown): KeyRestrictions {
  const o = JSON.parse(String(value)) as { referrers?: unknown; cidrs?: unknown };
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  return { referrers: strings(o.referrers), cidrs: strings(o.cidrs) };
}
