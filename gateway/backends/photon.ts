/**
 * Connector `photon` (D25): `/reverse?lat&lon&limit=1` (`lang` passed on where the client sent a language), a GeoJSON
 * FeatureCollection whose first feature's properties become the record; no feature is "no result". Property names:
 * the Photon README ("Results") and its API docs (name, street, housenumber, postcode, district, city, county, state,
 * country, countrycode, type).
 */
import type { BackendCall, SearchCall, SearchResult } from '../../adapters/types';
import type { Precision, ReverseRecord } from '../../backend/records';
import {
  alpha2,
  bboxOf,
  decimal,
  distanceKm,
  firstText,
  joinParts,
  OSM_NOTICE,
  queryPoint,
  queryString,
  searchLanguage,
  firstLanguage,
  searchResult,
  statusReading,
  text,
  type Json,
} from './common';
import { allFeatures, firstFeature } from './geojson';
import type { CallHints, Connector, Reading } from './types';

/** Photon's `type` of a result → precision (its values: house, street, locality, district, city, county, state, country). */
const PRECISION: Readonly<Record<string, Precision>> = {
  house: 'address',
  street: 'street',
  locality: 'locality',
  district: 'locality',
  city: 'locality',
  county: 'region',
  state: 'region',
  country: 'country',
};

/** Photon's most results per search (its `limit`; the public instance caps at 50). */
const MAX_LIMIT = 50;

/**
 * `/api?q&limit&lang&lat&lon&bbox` (Photon README, "Search"). Photon has no country filter: with one, the gateway
 * asks for the most results and keeps those of the countries (docs/decisions.md), at most `limit` of them.
 */
export function photonSearchPath(call: SearchCall, hints: CallHints): string {
  const b = call.bounds;
  return `/api?${queryString([
    ['q', call.q],
    ['limit', call.countries === null ? Math.min(call.limit, MAX_LIMIT) : MAX_LIMIT],
    ['lang', firstLanguage(searchLanguage(call, hints))],
    ['lat', call.focus?.lat],
    ['lon', call.focus?.lon],
    ['bbox', b === null ? null : `${b.minLon},${b.minLat},${b.maxLon},${b.maxLat}`],
  ])}`;
}

function request(call: BackendCall, hints: CallHints): string {
  if (call.kind === 'search') return photonSearchPath(call, hints);
  if (call.kind !== 'reverse') return '/reverse';
  let q = `/reverse?lat=${decimal(call.lat)}&lon=${decimal(call.lon)}&limit=1`;
  // Photon takes one language code (`lang=de`); the first of an accept-language list.
  const lang = hints.language === undefined ? null : /^[A-Za-z]{2,3}/.exec(hints.language);
  if (lang) q += `&lang=${lang[0].toLowerCase()}`;
  return q;
}

/** What the feature is: its `type`, else what its properties have. */
function precisionOf(p: Json, street: string | null, locality: string | null): Precision {
  const t = text(p, 'type');
  if (t !== null && PRECISION[t]) return PRECISION[t];
  if (text(p, 'housenumber') !== null) return 'address';
  if (street !== null) return 'street';
  return locality !== null ? 'locality' : text(p, 'state') !== null ? 'region' : 'country';
}

/** A Photon feature as the gateway's record. */
export function photonRecord(call: BackendCall, p: Json, lat: number, lon: number): ReverseRecord {
  const q = queryPoint(call);
  const type = text(p, 'type');
  const name = text(p, 'name');
  // A street feature's own name is the street; a place feature's name is its locality.
  const street = text(p, 'street') ?? (type === 'street' || text(p, 'osm_key') === 'highway' ? name : null);
  const placeType = type === 'city' || type === 'locality' || text(p, 'osm_key') === 'place';
  const locality = text(p, 'city') ?? (placeType && type !== 'house' ? name : null) ?? text(p, 'locality');
  const houseNumber = text(p, 'housenumber');
  const streetLine = street === null ? null : houseNumber === null ? street : `${houseNumber} ${street}`;
  const own = name !== null && name !== street && name !== locality ? name : null;
  return {
    query: q,
    countryCode: alpha2(text(p, 'countrycode')),
    country: text(p, 'country'),
    region: text(p, 'state'),
    regionCode: null,
    county: text(p, 'county'),
    locality,
    postcode: text(p, 'postcode'),
    distanceKm: distanceKm(q.lat, q.lon, lat, lon),
    displayName: joinParts([
      own,
      streetLine,
      firstText(p, ['district', 'locality']),
      locality,
      text(p, 'postcode'),
      text(p, 'county'),
      text(p, 'state'),
      text(p, 'country'),
    ]),
    lat,
    lon,
    timezone: null,
    attribution: OSM_NOTICE,
    street,
    houseNumber,
    suburb: text(p, 'district'),
    precision: precisionOf(p, street, locality),
    licence: 'ODbL-1.0',
  };
}

/** A search answer: every feature (in Photon's order), `extent` [minLon, maxLat, maxLon, minLat] as the bbox. */
function readSearch(call: SearchCall, body: Buffer): Reading {
  const all = allFeatures(body);
  if (typeof all === 'string') return { kind: 'unreadable', reason: all };
  const results: SearchResult[] = [];
  for (const f of all.features) {
    const record = photonRecord(call, f.props, f.lat, f.lon);
    if (call.countries !== null && !call.countries.includes(record.countryCode ?? '')) continue;
    const e = f.props['extent'];
    const bbox = Array.isArray(e) ? bboxOf(e[0], e[3], e[2], e[1]) : null;
    results.push(searchResult(record, null, bbox));
    if (results.length === call.limit) break;
  }
  return { kind: 'results', answer: { results, attribution: OSM_NOTICE } };
}

function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  if (call.kind === 'search') return readSearch(call, body);
  const f = firstFeature(body);
  if (f === 'empty') return { kind: 'no_result' };
  if (typeof f === 'string') return { kind: 'unreadable', reason: f };
  if (call.kind !== 'reverse') return { kind: 'unreadable', reason: 'Photon has no IP lookup' };
  return { kind: 'record', record: photonRecord(call, f.props, f.lat, f.lon) };
}

/** Photon (komoot). */
export const photonConnector: Connector = {
  kind: 'photon',
  ip: false,
  reverse: true,
  search: true,
  request,
  read,
  health: '/reverse?lat=0&lon=0&limit=1',
  healthy: (status) => status === 200,
};
