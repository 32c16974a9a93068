/**
 * Key restrictions in the key row (migration 004): JSON text, written and read the same by both stores. The store
 * stores what it is given: the accounts service validates and canonicalises restrictions first (D29,
 * gateway/policy/restrictions.ts normaliseRestrictions).
 */
import type { KeyRestrictions } from './types';

/** The column value to store for `input`: its JSON, or null when it restricts nothing. */
export function restrictionsColumn(input: KeyRestrictions | null): string | null {
  if (input === null || (input.referrers.length === 0 && input.cidrs.length === 0)) return null;
  return JSON.stringify({ referrers: input.referrers, cidrs: input.cidrs });
}

/** The restrictions of a stored column value (written by restrictionsColumn). */
export function readRestrictions(value: unknown): KeyRestrictions {
  const o = JSON.parse(String(value)) as { referrers?: unknown; cidrs?: unknown };
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  return { referrers: strings(o.referrers), cidrs: strings(o.cidrs) };
}
