/**
 * Drop-in host for Google Geocoding API clients: `GET /maps/api/geocode/json?latlng=lat,lng&key=` and forward
 * lookups `?address=...` / `?components=...` (issue 11).
 * Google answers errors with HTTP 200 and the error in the body's `status` (providers.md 1.1); so does this host.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLonPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable } from './common/parse';
import { textsFrom } from './common/texts';
import { methodRefusal, once, refuse, routePath, type RequestForm } from './common/parse';
import { placeNumber, regionLetters, resultPoint } from './common/place';
import { houseNumberOf, streetOf, suburbOf } from './common/street';
import { parseQuery } from './common/query';
import { json, xml } from './common/respond';
import { googleXml, type GoogleBody } from './common/google-xml';
import { searchBounds, searchCall, searchLanguage, searchText } from './common/search';
import type { Query } from './common/query';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParsedRequest,
  ParseResult,
  SearchResults,
} from './types';

/** What rendering needs to remember: whether the result_type / location_type filters admit our locality result. */
export interface GoogleState {
  filtersMatch: boolean;
  /** The output format in the path: json (the default) or xml. */
  output?: 'json' | 'xml';
}

/** A Google body status with the HTTP status it travels with (200 except for unknown paths). */
export interface GoogleError {
  http: number;
  status:
    | 'REQUEST_DENIED'
    | 'OVER_DAILY_LIMIT'
    | 'OVER_QUERY_LIMIT'
    | 'INVALID_REQUEST'
    | 'NOT_FOUND'
    | 'UNKNOWN_ERROR';
  message: string;
}

/** D24: each gateway code as Google's nearest body status. */
export const GOOGLE_ERRORS: ErrorTable<GoogleError> = {
  missing_key: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'You must use an API key to authenticate each request.',
  },
  invalid_key: { http: 200, status: 'REQUEST_DENIED', message: 'The provided API key is invalid.' },
  key_revoked: { http: 200, status: 'REQUEST_DENIED', message: 'The provided API key has been revoked.' },
  no_credits: {
    http: 200,
    status: 'OVER_DAILY_LIMIT',
    message: 'The free allowance is used and no credit is left.',
  },
  key_ip_limit: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'This IP address is not authorized to use this API key.',
  },
  account_ip_limit: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'This IP address is not authorized for this account.',
  },
  account_suspended: { http: 200, status: 'REQUEST_DENIED', message: 'The account is suspended.' },
  key_restricted: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'This IP, site or mobile application is not authorized to use this API key.',
  },
  quota_exceeded: { http: 200, status: 'OVER_QUERY_LIMIT', message: 'You are over your daily quota.' },
  rate_limited: {
    http: 200,
    status: 'OVER_QUERY_LIMIT',
    message: 'You have exceeded your rate-limit for this API.',
  },
  conflicting_credentials: {
    http: 200,
    status: 'INVALID_REQUEST',
    message: 'The request names two different keys.',
  },
  invalid_parameter: { http: 200, status: 'INVALID_REQUEST', message: 'Invalid request.' },
  invalid_forwarded: { http: 200, status: 'INVALID_REQUEST', message: 'Invalid request.' },
  ipv4_required: { http: 200, status: 'INVALID_REQUEST', message: 'An IPv4 address is required.' },
  not_found: { http: 404, status: 'NOT_FOUND', message: 'Unknown path.' },
  search_unavailable: {
    http: 200,
    status: 'INVALID_REQUEST',
    message: 'Address lookups are not available on this host.',
  },
  method_not_allowed: { http: 200, status: 'INVALID_REQUEST', message: 'Only GET is served.' },
  backend_unavailable: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
  backend_timeout: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server timeout; the request may succeed if you try again.',
  },
  store_unavailable: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
  internal: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
};

/**
 * Google's clients decide by `status` and show `error_message` as the error's text (geopy google.py:438, node-geocoder
 * "Status is <status>. <error_message>"), so the table's Google sentences are what they show; where the gateway knows
 * more (when a slot frees, when the allowance resets) its message follows (docs/providers/google.md).
 */
export const GOOGLE_TEXTS = textsFrom(GOOGLE_ERRORS, 'message', {
  missing_key: 'replaced',
  invalid_key: 'replaced',
  key_revoked: 'replaced',
  no_credits: 'replaced',
  account_suspended: 'replaced',
  key_restricted: 'replaced',
  key_ip_limit: 'appended',
  account_ip_limit: 'appended',
  quota_exceeded: 'appended',
});

const PATHS: Readonly<Record<string, 'json' | 'xml'>> = {
  '/maps/api/geocode/json': 'json',
  '/maps/api/geocode/xml': 'xml',
};

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const GOOGLE_FORMS: readonly RequestForm[] = [
  {
    example: '/maps/api/geocode/json?latlng=48.8584,2.2945&key=K',
    clients: 'google-maps-services-js, geopy GoogleV3',
  },
  {
    example: '/maps/api/geocode/json?sensor=false&key=K&latlng=48.8584%2C2.2945',
    clients: 'node-geocoder google, Geo::Coder::Googlev3',
  },
  {
    example: '/maps/api/geocode/json?latlng=48.8584,2.2945&result_type=locality|political&language=fr&key=K',
    clients: 'google-maps-services-js',
  },
  {
    example: '/maps/api/geocode/xml?latlng=48.8584,2.2945&key=K',
    clients: "Google's XML output (scripts, older SDKs)",
  },
  { example: '/maps/api/geocode/json/?latlng=48.8584,2.2945&key=K', clients: 'trailing slash' },
];

function listParam(value: string | undefined): string[] | undefined {
  return value === undefined || value === '' ? undefined : value.split('|').map((s) => s.trim());
}

function parse(req: AdapterRequest): ParseResult<GoogleState> {
  const output = PATHS[routePath(req.path)];
  if (output === undefined) return null;
  const keep = (r: ParseResult<never>): ParseResult<GoogleState> =>
    r && !r.ok && output === 'xml' ? { ...r, state: { filtersMatch: false, output } } : r;
  const refusal = methodRefusal(req);
  if (refusal) return keep(refusal);
  const q = parseQuery(req.query);
  const latlng = once(q, 'latlng');
  if ('refusal' in latlng) return keep(latlng.refusal);
  if (latlng.value === undefined && (q.has('address') || q.has('components'))) {
    const forward = parseForward(
      q,
      output === 'xml' ? { filtersMatch: true, output } : { filtersMatch: true },
    );
    return forward !== null && 'call' in forward ? { ok: true, request: forward } : keep(forward);
  }
  if (latlng.value === undefined && q.has('place_id')) {
    return keep(
      refuse('invalid_parameter', 'place_id', 'place_id lookups are not served; use address or latlng'),
    );
  }
  const point = parseLatLonPair(latlng.value, 'latlng', false);
  if (!point.ok) return keep(refuse('invalid_parameter', point.parameter, point.detail));
  const types = listParam(q.get('result_type')?.[0]);
  const locationTypes = listParam(q.get('location_type')?.[0]);
  const filtersMatch =
    (types === undefined || types.includes('locality') || types.includes('political')) &&
    (locationTypes === undefined || locationTypes.includes('APPROXIMATE'));
  return {
    ok: true,
    request: {
      call: { kind: 'reverse', lat: point.lat, lon: point.lon },
      state: output === 'xml' ? { filtersMatch, output } : { filtersMatch },
    },
  };
}

/** How many results a forward lookup answers (Google has no limit parameter; docs/decisions.md). */
const FORWARD_RESULTS = 5;
/** `address=` written as a point ("48.8584,2.2945"): Google answers the place there, as a reverse lookup. */
const POINT = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/;

/**
 * `address=` and/or `components=` (route, locality, administrative_area, postal_code, country: Google's component
 * filters), `bounds=` (sw_lat,sw_lng|ne_lat,ne_lng, a preference), `language=`: the canonical search. `country:`
 * filters the results; the other components join the text. `region=` (a ccTLD bias) is accepted and not used.
 */
function parseForward(q: Query, state: GoogleState): ParsedRequest<GoogleState> | ParseResult<never> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['address', 'components', 'bounds', 'language']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const point = v['address'] === undefined || v['components'] !== undefined ? null : POINT.exec(v['address']);
  if (point) {
    const pair = parseLatLonPair(`${point[1]},${point[2]}`, 'address', false);
    if (!pair.ok) return refuse('invalid_parameter', 'address', pair.detail);
    return { call: { kind: 'reverse', lat: pair.lat, lon: pair.lon }, state };
  }
  const countries: string[] = [];
  const parts: string[] = [];
  for (const c of (v['components'] ?? '').split('|').filter((x) => x.trim() !== '')) {
    const m = /^\s*(route|locality|administrative_area|postal_code|country):(.+)$/i.exec(c);
    if (!m)
      return refuse('invalid_parameter', 'components', `components: "${c}" is not a Google component filter`);
    const [kind, value] = [(m[1] as string).toLowerCase(), (m[2] as string).trim()];
    if (kind !== 'country') parts.push(value);
    else if (/^[A-Za-z]{2}$/.test(value)) countries.push(value.toUpperCase());
    else
      return refuse('invalid_parameter', 'components', 'components: country must be a two-letter ISO code');
  }
  const text = searchText(
    [v['address'], ...parts].filter((x) => x !== undefined && x !== '').join(', '),
    'address',
  );
  if (!text.ok) return refuse('invalid_parameter', text.parameter, text.detail);
  const bounds = searchBounds(v['bounds']?.replace('|', ','), 'bounds', 'latlon');
  if (!bounds.ok) return refuse('invalid_parameter', bounds.parameter, bounds.detail);
  const language = searchLanguage(v['language'], 'language');
  if (!language.ok) return refuse('invalid_parameter', language.parameter, language.detail);
  const call = searchCall(text.value, {
    limit: FORWARD_RESULTS,
    countries: countries.length > 0 ? countries : null,
    language: language.value,
    bounds: bounds.value,
  });
  return { call, state };
}

function addressComponents(r: ReverseRecord): { long_name: string; short_name: string; types: string[] }[] {
  const out: { long_name: string; short_name: string; types: string[] }[] = [];
  const number = houseNumberOf(r);
  const street = streetOf(r);
  const suburb = suburbOf(r);
  if (number) out.push({ long_name: number, short_name: number, types: ['street_number'] });
  if (street) out.push({ long_name: street, short_name: street, types: ['route'] });
  if (suburb)
    out.push({
      long_name: suburb,
      short_name: suburb,
      types: ['political', 'sublocality', 'sublocality_level_1'],
    });
  if (r.locality)
    out.push({ long_name: r.locality, short_name: r.locality, types: ['locality', 'political'] });
  if (r.county)
    out.push({
      long_name: r.county,
      short_name: r.county,
      types: ['administrative_area_level_2', 'political'],
    });
  if (r.region) {
    out.push({
      long_name: r.region,
      short_name: regionLetters(r) ?? r.region,
      types: ['administrative_area_level_1', 'political'],
    });
  }
  if (r.country && r.countryCode)
    out.push({ long_name: r.country, short_name: r.countryCode, types: ['country', 'political'] });
  if (r.postcode) out.push({ long_name: r.postcode, short_name: r.postcode, types: ['postal_code'] });
  return out;
}

/** A Google answer in the state's output format: JSON, or Google's `<GeocodeResponse>` XML document. */
function answer(state: GoogleState | null, status: number, body: GoogleBody): AdapterResponse {
  return state?.output === 'xml' ? xml(status, googleXml(body)) : json(status, body);
}

function renderReverse(state: GoogleState, r: ReverseRecord): AdapterResponse {
  const attributions = [r.attribution];
  if (!state.filtersMatch || (r.locality === null && r.countryCode === null)) {
    return answer(state, 200, { html_attributions: attributions, results: [], status: 'ZERO_RESULTS' });
  }
  return answer(state, 200, { html_attributions: attributions, results: [googleResult(r)], status: 'OK' });
}

/** A forward lookup's answer: Google's results best first (`viewport` and `bounds` from the extent), or ZERO_RESULTS. */
function renderSearch(state: GoogleState, a: SearchResults): AdapterResponse {
  const attributions = [a.attribution];
  if (a.results.length === 0)
    return answer(state, 200, { html_attributions: attributions, results: [], status: 'ZERO_RESULTS' });
  const results = a.results.map((r) => {
    const g = googleResult(r);
    if (r.bbox === null) return g;
    const [w, s, e, n] = r.bbox;
    const box = { northeast: { lat: n, lng: e }, southwest: { lat: s, lng: w } };
    return { ...g, geometry: { ...g.geometry, bounds: box, viewport: box } };
  });
  return answer(state, 200, { html_attributions: attributions, results, status: 'OK' });
}

/** One Google result of a record: components, formatted address, geometry, place id and types. */
function googleResult(r: ReverseRecord) {
  const p = resultPoint(r);
  return {
    address_components: addressComponents(r),
    formatted_address: r.displayName,
    geometry: {
      location: { lat: p.lat, lng: p.lon },
      location_type: houseNumberOf(r) ? 'ROOFTOP' : streetOf(r) ? 'GEOMETRIC_CENTER' : 'APPROXIMATE',
      viewport: {
        northeast: { lat: p.lat + 0.05, lng: p.lon + 0.05 },
        southwest: { lat: p.lat - 0.05, lng: p.lon - 0.05 },
      },
    },
    place_id: `geogate.${placeNumber(r).toString(36)}`,
    types: houseNumberOf(r)
      ? ['street_address']
      : streetOf(r)
        ? ['route']
        : r.locality
          ? ['locality', 'political']
          : ['country', 'political'],
  };
}

/**
 * Renders a refusal. `not_found` with a parsed request is the backend's "no result" (an unknown path has no state),
 * which Google answers as ZERO_RESULTS.
 */
function renderError(
  state: GoogleState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null)
    return answer(state, 200, { html_attributions: [], results: [], status: 'ZERO_RESULTS' });
  const row = GOOGLE_ERRORS[code];
  return answer(state, row.http, {
    error_message: withTopUp(detail || row.message, facts),
    results: [],
    status: row.status,
  });
}

/** The Google adapter. */
export const google: Adapter<GoogleState> = {
  name: 'google',
  credentialParams: ['key', 'client', 'signature'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: GoogleState, _r: IpRecord) =>
    renderError(null, 'not_found', 'IP lookups are not served here', {}),
  renderError,
  clientTexts: GOOGLE_TEXTS,
};
