/** The administrative level a reverse answer describes, for providers whose requests can ask for a level. */
import type { ReverseRecord } from '../../backend/records';

/** Locality (city), region (admin-1) or country. */
export type Level = 'locality' | 'region' | 'country';

/** The level answered: the requested one, stepping up when the record lacks it; null when nothing is known. */
export function answerLevel(requested: Level | null, r: ReverseRecord): Level | null {
  if (requested === null) return null;
  // A street-level record (D25 connectors) answers at the locality level even where it names no locality.
  if (requested === 'locality' && (r.locality || r.street)) return 'locality';
  if (requested !== 'country' && r.region) return 'region';
  return r.country ? 'country' : null;
}

/** The name of the record at a level. */
export function nameAt(level: Level, r: ReverseRecord): string {
  return (level === 'locality' ? r.locality : level === 'region' ? r.region : r.country) ?? '';
}
