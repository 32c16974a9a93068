/**
 * Whether a backend answer has the record shape the adapters render (backend/records.ts). An answer that does not is
 * "unrenderable": released and answered 502 (D11 at the render step, issue 13 item 11). Checks only, no allocation.
 */
import type { IpRecord, ReverseRecord } from '../../backend/records';

type Json = Record<string, unknown>;

const isStr = (v: unknown): boolean => typeof v === 'string';
const isNum = (v: unknown): boolean => typeof v === 'number';
const strOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const numOrNull = (v: unknown): boolean => v === null || typeof v === 'number';

/** The backend's JSON object, or null (not JSON, or not an object). */
export function parseJsonObject(body: Buffer): Json | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/** A `GET /reverse` record: every field present with its type (nullable ones may be null). */
export function isReverseRecord(j: Json): j is Json & ReverseRecord {
  const q = j['query'];
  return (
    typeof q === 'object' &&
    q !== null &&
    isNum((q as Json)['lat']) &&
    isNum((q as Json)['lon']) &&
    isStr(j['displayName']) &&
    isStr(j['attribution']) &&
    strOrNull(j['countryCode']) &&
    strOrNull(j['country']) &&
    strOrNull(j['region']) &&
    strOrNull(j['regionCode']) &&
    strOrNull(j['county']) &&
    strOrNull(j['locality']) &&
    strOrNull(j['postcode']) &&
    numOrNull(j['distanceKm']) &&
    numOrNull(j['lat']) &&
    numOrNull(j['lon']) &&
    strOrNull(j['timezone'])
  );
}

/** A `GET /ipv4` record: every field present with its type (nullable ones may be null). */
export function isIpRecord(j: Json): j is Json & IpRecord {
  return (
    isStr(j['ip']) &&
    isStr(j['attribution']) &&
    strOrNull(j['countryCode']) &&
    strOrNull(j['country']) &&
    strOrNull(j['region']) &&
    strOrNull(j['city']) &&
    numOrNull(j['lat']) &&
    numOrNull(j['lon']) &&
    strOrNull(j['timezone']) &&
    numOrNull(j['asn']) &&
    strOrNull(j['org'])
  );
}
