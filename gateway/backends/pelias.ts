/**
 * Connector `pelias` (D25): `/v1/reverse?point.lat&point.lon&size=1` (`lang` passed on), a GeoJSON FeatureCollection
 * with a `geocoding` block; the first feature's properties (label, country_code or country_a, region, region_a,
 * county, locality, neighbourhood, street, housenumber, postalcode, distance, layer) become the record; no feature
 * is "no result". Property names: the Pelias documentation (response.md, reverse.md).
 */
import { iso1A2Code } from '@rapideditor/country-coder';
import type { BackendCall, SearchCall, SearchResult } from '../../adapters/types';
import type { Precision, ReverseRecord } from '../../backend/records';
import {
  alpha2,
  bboxOf,
  decimal,
  distanceKm,
  firstText,
  isObject,
  joinParts,
  queryPoint,
  queryString,
  relevanceOf,
  searchLanguage,
  searchResult,
  statusReading,
  text,
  type Json,
} from './common';
import { allFeatures, firstFeature } from './geojson';
import type { CallHints, Connector, Reading } from './types';

/** Pelias layers → precision. */
const PRECISION: Readonly<Record<string, Precision>> = {
  address: 'address',
  venue: 'address',
  street: 'street',
  neighbourhood: 'locality',
  borough: 'locality',
  locality: 'locality',
  localadmin: 'locality',
  postalcode: 'locality',
  county: 'region',
  macrocounty: 'region',
  region: 'region',
  macroregion: 'region',
  dependency: 'country',
  country: 'country',
};

/** Pelias's most results per search (`size`, at most 40: search.md). */
const MAX_LIMIT = 40;

/**
 * `/v1/search?text&size&boundary.country&focus.point.lat/lon&boundary.rect.*&lang` (Pelias search.md). Countries go
 * as a comma-separated alpha-2 list (Pelias takes alpha-2 or alpha-3).
 */
export function peliasSearchPath(call: SearchCall, hints: CallHints): string {
  const b = call.bounds;
  const lang = searchLanguage(call, hints);
  const tag = lang === null ? null : /^[A-Za-z]{2,3}(?:-[A-Za-z]{2})?/.exec(lang.trim());
  return `/v1/search?${queryString([
    ['text', call.q],
    ['size', Math.min(call.limit, MAX_LIMIT)],
    ['boundary.country', call.countries === null ? null : call.countries.join(',')],
    ['focus.point.lat', call.focus?.lat],
    ['focus.point.lon', call.focus?.lon],
    ['boundary.rect.min_lon', b?.minLon],
    ['boundary.rect.min_lat', b?.minLat],
    ['boundary.rect.max_lon', b?.maxLon],
    ['boundary.rect.max_lat', b?.maxLat],
    ['lang', tag ? tag[0] : null],
  ])}`;
}

function request(call: BackendCall, hints: CallHints): string {
  if (call.kind === 'search') return peliasSearchPath(call, hints);
  if (call.kind !== 'reverse') return '/v1/reverse';
  let q = `/v1/reverse?point.lat=${decimal(call.lat)}&point.lon=${decimal(call.lon)}&size=1`;
  const lang = hints.language === undefined ? null : /^[A-Za-z]{2,3}(?:-[A-Za-z]{2})?/.exec(hints.language);
  if (lang) q += `&lang=${encodeURIComponent(lang[0])}`;
  return q;
}

/** ISO alpha-2 from `country_code` (newer Pelias) or `country_a` (alpha-3). */
function countryCode(p: Json): string | null {
  const two = alpha2(text(p, 'country_code'));
  if (two !== null) return two;
  const three = text(p, 'country_a');
  return three === null ? null : (iso1A2Code(three) ?? null);
}

/** A Pelias feature as the gateway's record; `attribution` is the answer's `geocoding.attribution`. */
export function peliasRecord(
  call: BackendCall,
  p: Json,
  lat: number,
  lon: number,
  attribution: string,
): ReverseRecord {
  const q = queryPoint(call);
  const distance = p['distance'];
  const street = text(p, 'street');
  const houseNumber = text(p, 'housenumber');
  const locality = firstText(p, ['locality', 'localadmin']);
  const layer = text(p, 'layer');
  const regionA = text(p, 'region_a');
  return {
    query: q,
    countryCode: countryCode(p),
    country: text(p, 'country'),
    region: firstText(p, ['region', 'macroregion']),
    regionCode: regionA !== null && /^[A-Z0-9]{1,3}$/.test(regionA) ? regionA : null,
    county: firstText(p, ['county', 'macrocounty']),
    locality,
    postcode: text(p, 'postalcode'),
    distanceKm:
      typeof distance === 'number' && Number.isFinite(distance) && distance >= 0
        ? Math.round(distance * 1000) / 1000
        : distanceKm(q.lat, q.lon, lat, lon),
    displayName:
      text(p, 'label') ?? joinParts([text(p, 'name'), locality, text(p, 'region'), text(p, 'country')]),
    lat,
    lon,
    timezone: null,
    attribution,
    street,
    houseNumber,
    suburb: firstText(p, ['neighbourhood', 'borough']),
    precision:
      (layer !== null ? PRECISION[layer] : undefined) ?? (houseNumber !== null ? 'address' : 'locality'),
    licence: null,
  };
}

/** The answer's `geocoding.attribution`, else a generic notice. */
function attributionOf(collection: Json): string {
  const g = collection['geocoding'];
  return (isObject(g) ? text(g, 'attribution') : null) ?? 'Pelias (see its data sources)';
}

/** A search answer: every feature in Pelias's order, `confidence` as relevance, the feature's `bbox`. */
function readSearch(call: SearchCall, body: Buffer): Reading {
  const all = allFeatures(body);
  if (typeof all === 'string') return { kind: 'unreadable', reason: all };
  const attribution = attributionOf(all.collection);
  const results: SearchResult[] = all.features.map((f) => {
    const b = f.feature['bbox'];
    const bbox = Array.isArray(b) ? bboxOf(b[0], b[1], b[2], b[3]) : null;
    const record = peliasRecord(call, f.props, f.lat, f.lon, attribution);
    return searchResult(record, relevanceOf(f.props['confidence']), bbox);
  });
  return { kind: 'results', answer: { results, attribution } };
}

function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  if (call.kind === 'search') return readSearch(call, body);
  const f = firstFeature(body);
  if (f === 'empty') return { kind: 'no_result' };
  if (typeof f === 'string') return { kind: 'unreadable', reason: f };
  if (call.kind !== 'reverse') return { kind: 'unreadable', reason: 'Pelias has no IP lookup' };
  return { kind: 'record', record: peliasRecord(call, f.props, f.lat, f.lon, attributionOf(f.collection)) };
}

/** Pelias. */
export const peliasConnector: Connector = {
  kind: 'pelias',
  ip: false,
  reverse: true,
  search: true,
  request,
  read,
  health: '/v1/reverse?point.lat=0&point.lon=0&size=1',
  healthy: (status) => status === 200,
};
