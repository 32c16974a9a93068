/**
 * Connector `geogate` (D25): our own backend (backend/), `/reverse?lat&lon`, `/ipv4?ip` and `/search?q&limit&
 * countrycodes` (issue 11; its places carry no street, no bounding box, and a score that becomes `relevance`).
 */
import type { BackendCall, SearchCall, SearchResult } from '../../adapters/types';
import { isIpRecord, isReverseRecord, parseJsonObject } from './record-shape';
import { decimal, isObject, queryString, searchResult, statusReading, type Json } from './common';
import type { Connector, Reading } from './types';

/** The members of a backend search result that are not place fields. */
const RANKING = ['score', 'match', 'matchedAlternate', 'population'] as const;

/** The backend's most results per search (backend/search/index.ts MAX_SEARCH_LIMIT). */
const MAX_LIMIT = 50;

/** The backend path of a call. `ip` must be filled in by then (the caller's own address for /v1/ipv4). */
export function geogatePath(call: BackendCall): string {
  if (call.kind === 'reverse') return `/reverse?lat=${decimal(call.lat)}&lon=${decimal(call.lon)}`;
  if (call.kind === 'search') return searchPath(call);
  return `/ipv4?ip=${encodeURIComponent(call.ip ?? '')}`;
}

/**
 * The place name our backend matches: the structured `city` when given, else the text before its first comma
 * ("Paris, France" → "Paris"; the backend matches whole place names, so the rest would only prevent a match).
 */
export function placeName(call: SearchCall): string {
  const city = call.parts?.city;
  if (city !== undefined && city.trim() !== '') return city.trim();
  const head = call.q.split(',')[0]?.trim() ?? '';
  return /[\p{L}\p{N}]/u.test(head) ? head : call.q;
}

/** `/search`: the place name, the limit and the country filter (the backend has no language, bias or street). */
function searchPath(call: SearchCall): string {
  return `/search?${queryString([
    ['q', placeName(call)],
    ['limit', Math.min(call.limit, MAX_LIMIT)],
    ['countrycodes', call.countries === null ? null : call.countries.join(',').toLowerCase()],
  ])}`;
}

/**
 * A backend search result's relevance (docs/decisions.md): an exact match of the place's own name 1, of an alternate
 * name 0.9; a prefix match 0.6 and 0.5. The backend's `score` orders the list; this only rates each result.
 */
function relevance(r: Json): number {
  const exact = r['match'] === 'exact';
  const alternate = r['matchedAlternate'] === true;
  return exact ? (alternate ? 0.9 : 1) : alternate ? 0.5 : 0.6;
}

/** A `/search` answer: `results` of place records (the reverse shape without `query`). */
function readSearch(body: Buffer): Reading {
  const json = parseJsonObject(body);
  const list = json?.['results'];
  if (json === null || !Array.isArray(list) || typeof json['attribution'] !== 'string')
    return { kind: 'unreadable', reason: 'no search answer shape' };
  const results: SearchResult[] = [];
  for (const r of list as unknown[]) {
    if (!isObject(r)) return { kind: 'unreadable', reason: 'a result is not an object' };
    // The ranking fields are the backend's own (score orders the list); the record keeps the place fields.
    const withQuery: Json = { ...r, query: { lat: r['lat'], lon: r['lon'] } };
    for (const k of RANKING) delete withQuery[k];
    if (!isReverseRecord(withQuery))
      return { kind: 'unreadable', reason: 'a result without the record shape' };
    results.push(searchResult(withQuery, relevance(r), null));
  }
  return { kind: 'results', answer: { results, attribution: json['attribution'] } };
}

/** A 200 is a record when it has the record shape of its call (record-shape.ts). */
function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  if (call.kind === 'search') return readSearch(body);
  const json = parseJsonObject(body);
  if (json !== null && call.kind === 'reverse' && isReverseRecord(json))
    return { kind: 'record', record: json };
  if (json !== null && call.kind === 'ipv4' && isIpRecord(json)) return { kind: 'record', record: json };
  return { kind: 'unreadable', reason: 'no record shape' };
}

/** Our own backend. */
export const geogateConnector: Connector = {
  kind: 'geogate',
  ip: true,
  reverse: true,
  search: true,
  request: (call) => geogatePath(call),
  read,
  health: '/healthz',
  healthy: (status) => status === 200,
};
