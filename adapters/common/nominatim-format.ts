/**
 * Nominatim's reverse formats (json, jsonv2, geojson, geocodejson, xml), shared by the Nominatim and LocationIQ
 * drop-in hosts (LocationIQ answers in Nominatim's format, providers.md 1.4). Field names follow Nominatim's
 * `docs/api/Reverse.md` and `v1/format.py` (providers.md 1.6).
 */
import type { ReverseRecord } from '../../backend/records';
import type { AdapterResponse } from '../types';
import { placeNumber, resultPoint, smallBox } from './place';
import { houseNumberOf, streetOf, suburbOf } from './street';
import { json, xml, xmlEscape } from './respond';

/** The output formats Nominatim's /reverse knows. */
export const NOMINATIM_FORMATS = ['xml', 'json', 'jsonv2', 'geojson', 'geocodejson'] as const;
export type NominatimFormat = (typeof NOMINATIM_FORMATS)[number];

/** Rendering options read from the request. */
export interface NominatimView {
  format: NominatimFormat;
  /** 0..18: at 0-4 the answer is the country, at 5-9 the state, at 10+ the locality (Nominatim's zoom levels). */
  zoom: number;
  addressdetails: boolean;
  /** Request echo for the XML `querystring` attribute: coordinates and options only, never a credential. */
  echo: string;
}

/** The place the record describes at the requested zoom. */
interface Place {
  type: 'house' | 'road' | 'city' | 'state' | 'country';
  rank: number;
  name: string;
  displayName: string;
  address: Record<string, string>;
}

function placeAt(r: ReverseRecord, zoom: number): Place | null {
  const cc = r.countryCode?.toLowerCase();
  const base: Record<string, string> = {};
  if (r.country) base['country'] = r.country;
  if (cc) base['country_code'] = cc;
  // Street level (zoom 16+, "major streets" and finer in Reverse.md) when the backend has a street (D25 connectors).
  const street = streetOf(r);
  if (zoom >= 16 && street !== null) return streetPlace(r, street, base);
  if (zoom <= 4 || (r.locality === null && r.region === null)) {
    if (!r.country) return null;
    return { type: 'country', rank: 4, name: r.country, displayName: r.country, address: base };
  }
  if (zoom <= 9 || r.locality === null) {
    if (!r.region) return null;
    const displayName = [r.region, r.country].filter(Boolean).join(', ');
    return { type: 'state', rank: 8, name: r.region, displayName, address: { state: r.region, ...base } };
  }
  const address: Record<string, string> = { city: r.locality };
  if (r.county) address['county'] = r.county;
  if (r.region) address['state'] = r.region;
  if (r.postcode) address['postcode'] = r.postcode;
  return {
    type: 'city',
    rank: 16,
    name: r.locality,
    displayName: r.displayName,
    address: { ...address, ...base },
  };
}

/** A house or a road, with Nominatim's address keys (house_number, road, suburb, city, ...: Output.md). */
function streetPlace(r: ReverseRecord, street: string, base: Record<string, string>): Place {
  const address: Record<string, string> = {};
  const number = houseNumberOf(r);
  const suburb = suburbOf(r);
  if (number) address['house_number'] = number;
  address['road'] = street;
  if (suburb) address['suburb'] = suburb;
  if (r.locality) address['city'] = r.locality;
  if (r.county) address['county'] = r.county;
  if (r.region) address['state'] = r.region;
  if (r.postcode) address['postcode'] = r.postcode;
  return number
    ? { type: 'house', rank: 30, name: '', displayName: r.displayName, address: { ...address, ...base } }
    : { type: 'road', rank: 26, name: street, displayName: r.displayName, address: { ...address, ...base } };
}

/** Geocodejson's own keys for Nominatim's address keys (housenumber, street: Output.md "GeocodeJSON"). */
const GEOCODEJSON_KEYS: Readonly<Record<string, string>> = {
  house_number: 'housenumber',
  road: 'street',
  suburb: 'district',
};

const fixed = (n: number) => n.toFixed(7);

function jsonPlace(r: ReverseRecord, p: Place, v: NominatimView, licence: string): Record<string, unknown> {
  const pt = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  return {
    place_id: placeNumber(r),
    licence,
    lat: fixed(pt.lat),
    lon: fixed(pt.lon),
    [v.format === 'jsonv2' ? 'category' : 'class']: p.type === 'road' ? 'highway' : 'place',
    type: p.type,
    place_rank: p.rank,
    importance: 0.5,
    addresstype: p.type === 'house' ? 'place' : p.type,
    name: p.name || null,
    display_name: p.displayName,
    ...(v.addressdetails ? { address: p.address } : {}),
    boundingbox: [fixed(s), fixed(n), fixed(w), fixed(e)],
  };
}

function geojson(r: ReverseRecord, p: Place, v: NominatimView, licence: string): unknown {
  const pt = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  const properties = {
    place_id: placeNumber(r),
    place_rank: p.rank,
    category: p.type === 'road' ? 'highway' : 'place',
    type: p.type,
    importance: 0.5,
    addresstype: p.type === 'house' ? 'place' : p.type,
    name: p.name || null,
    display_name: p.displayName,
    ...(v.addressdetails ? { address: p.address } : {}),
  };
  const geometry = { type: 'Point', coordinates: [pt.lon, pt.lat] };
  return {
    type: 'FeatureCollection',
    licence,
    features: [{ type: 'Feature', properties, bbox: [w, s, e, n], geometry }],
  };
}

function geocodejson(r: ReverseRecord, p: Place, licence: string): unknown {
  const pt = resultPoint(r);
  const geocoding = {
    place_id: placeNumber(r),
    type: p.type,
    label: p.displayName,
    name: p.name || null,
    ...Object.fromEntries(Object.entries(p.address).map(([k, v]) => [GEOCODEJSON_KEYS[k] ?? k, v])),
  };
  return {
    type: 'FeatureCollection',
    geocoding: { version: '0.1.0', attribution: licence, licence: 'see attribution', query: '' },
    features: [
      {
        type: 'Feature',
        properties: { geocoding },
        geometry: { type: 'Point', coordinates: [pt.lon, pt.lat] },
      },
    ],
  };
}

function xmlPlace(r: ReverseRecord, p: Place, v: NominatimView, licence: string): string {
  const pt = resultPoint(r);
  const box = smallBox(r).map(fixed).join(',');
  const attrs = `place_id="${placeNumber(r)}" lat="${fixed(pt.lat)}" lon="${fixed(pt.lon)}" boundingbox="${box}" place_rank="${p.rank}"`;
  const parts = Object.entries(p.address)
    .map(([k, val]) => `<${k}>${xmlEscape(val)}</${k}>`)
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8" ?>\n` +
    `<reversegeocode attribution="${xmlEscape(licence)}" querystring="${xmlEscape(v.echo)}">` +
    `<result ${attrs}>${xmlEscape(p.displayName)}</result>` +
    (v.addressdetails ? `<addressparts>${parts}</addressparts>` : '') +
    `</reversegeocode>`
  );
}

/** Whether the record has a place at the view's zoom (otherwise the answer is "Unable to geocode"). */
export function hasPlace(v: NominatimView, r: ReverseRecord): boolean {
  return placeAt(r, v.zoom) !== null;
}

/** Renders a backend record as Nominatim does; no place at this zoom is Nominatim's 200 "Unable to geocode". */
export function renderNominatim(v: NominatimView, r: ReverseRecord, licence: string): AdapterResponse {
  const p = placeAt(r, v.zoom);
  if (p === null) return renderUnableToGeocode(v.format);
  switch (v.format) {
    case 'xml':
      return xml(200, xmlPlace(r, p, v, licence));
    case 'geojson':
      return json(200, geojson(r, p, v, licence));
    case 'geocodejson':
      return json(200, geocodejson(r, p, licence));
    default:
      return json(200, jsonPlace(r, p, v, licence));
  }
}

/** Nominatim's answer when there is no place: HTTP 200 with the error "Unable to geocode". */
export function renderUnableToGeocode(format: NominatimFormat): AdapterResponse {
  return format === 'xml'
    ? xml(
        200,
        `<?xml version="1.0" encoding="UTF-8" ?>\n<reversegeocode><error>Unable to geocode</error></reversegeocode>`,
      )
    : json(200, { error: 'Unable to geocode' });
}

/** Nominatim's error document for the XML format (`<error><code/><message/></error>`). */
export function nominatimXmlError(status: number, message: string): AdapterResponse {
  return xml(
    status,
    `<?xml version="1.0" encoding="UTF-8" ?>\n<error><code>${status}</code><message>${xmlEscape(message)}</message></error>`,
  );
}
