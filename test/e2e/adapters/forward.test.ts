/**
 * Forward lookups end to end (issue 11 item 4): real, unmodified clients against the real gateway and backend
 * processes (our backend's GeoNames place search). Each client geocodes "Paris" through its drop-in host and reads
 * the French capital first; a text that matches nothing resolves to the client's own "no result".
 */
import { Client } from '@googlemaps/google-maps-services-js';
import { call, outcome, settlesWithin, useDropIns, useFaultWatch } from '../harness';

interface GeocoderResult {
  city?: string;
  country?: string;
  countryCode?: string;
  latitude?: number;
  longitude?: number;
  formattedAddress?: string;
}
interface Geocoder {
  geocode(query: string | Record<string, unknown>): Promise<GeocoderResult[]>;
}
// node-geocoder ships no types; it is used exactly as its README shows.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const NodeGeocoder = require('node-geocoder') as (options: Record<string, unknown>) => Geocoder;
/** node-fetch 2, the HTTP stack node-geocoder itself uses. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFetch = require('node-fetch') as (url: string, options: unknown) => Promise<unknown>;

interface MapiResponse {
  statusCode: number;
  body: {
    query?: string[];
    features: {
      place_name?: string;
      relevance?: number;
      center?: [number, number];
      context?: { id: string; text: string; short_code?: string }[];
      properties: Record<string, unknown> & {
        full_address?: string;
        context?: Record<string, { name: string; country_code?: string }>;
      };
    }[];
  };
}
interface Sendable {
  send(): Promise<MapiResponse>;
}
// The SDK ships no types; it is used exactly as its README shows.
/* eslint-disable @typescript-eslint/no-require-imports */
const mbxClient = require('@mapbox/mapbox-sdk') as (o: { accessToken: string; origin: string }) => unknown;
const mbxGeocoding = require('@mapbox/mapbox-sdk/services/geocoding') as (c: unknown) => {
  forwardGeocode(o: { query: string; limit?: number; countries?: string[] }): Sendable;
};
const mbxGeocodingV6 = require('@mapbox/mapbox-sdk/services/geocoding-v6') as (c: unknown) => {
  forwardGeocode(o: { query: string; limit?: number }): Sendable;
};
/* eslint-enable @typescript-eslint/no-require-imports */

useFaultWatch();
jest.setTimeout(30_000);

const env = useDropIns(
  ['nominatim', 'google', 'mapbox', 'opencage', 'locationiq', 'here', 'bing', 'geocodio'],
  { freePerDay: 100 },
);
/** A Mapbox-shaped token carrying a geogate key (the SDK refuses others; the adapter unwraps it). */
const token = (key: string) => `pk.eyJ1IjoiZ2VvZ2F0ZSJ9.${key}`;

/** node-geocoder with its requests sent to the drop-in host of `adapter` (its own `fetch` option). */
function geocoder(provider: string, adapter: string, options: Record<string, unknown> = {}): Geocoder {
  const base = env.url(adapter);
  const fetch = (url: string, opts: unknown) => {
    const u = new URL(url);
    return nodeFetch(`${base}${u.pathname}${u.search}`, opts);
  };
  return NodeGeocoder({ provider, fetch, ...options });
}

describe('main host GET /v1/search against the real backend', () => {
  it('answers Paris, France first for "Paris" and counts one request', async () => {
    const key = await env.freshKey();
    const a = await call(env.harness.mainUrl, `/v1/search?q=Paris&limit=3&key=${key}`, {
      headers: { host: 'localhost' },
    });
    expect(a.status).toBe(200);
    expect(a.json.results.length).toBeGreaterThan(0);
    expect(a.json.results.length).toBeLessThanOrEqual(3);
    expect(a.json.results[0]).toMatchObject({
      address: { locality: 'Paris', country_code: 'FR' },
      relevance: 1,
      timezone: 'Europe/Paris',
    });
    const none = await call(env.harness.mainUrl, `/v1/search?q=xqzzyqxq&key=${key}`, {
      headers: { host: 'localhost' },
    });
    expect(none.status).toBe(200);
    expect(none.json.results).toEqual([]);
  });
});

describe('node-geocoder openstreetmap geocode() against the Nominatim host', () => {
  it('geocodes "Paris" to Paris, FR first, several results best first', async () => {
    const key = await env.freshKey();
    const geo = geocoder('openstreetmap', 'nominatim');
    const results = await settlesWithin(
      geo.geocode({ q: 'Paris', key, limit: 5 }),
      'node-geocoder openstreetmap',
    );
    expect(results.length).toBeGreaterThan(1);
    expect(results[0]).toMatchObject({ city: 'Paris', countryCode: 'FR' });
    expect(results[0]?.latitude).toBeCloseTo(48.85, 1);
    expect(results[0]?.longitude).toBeCloseTo(2.35, 1);
  });

  it('the country filter keeps only that country (countrycodes)', async () => {
    const key = await env.freshKey();
    const geo = geocoder('openstreetmap', 'nominatim');
    const results = await settlesWithin(
      geo.geocode({ q: 'Paris', key, countrycodes: 'us', limit: 5 }),
      'node-geocoder openstreetmap',
    );
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(r.countryCode).toBe('US');
  });

  it('a text that matches nothing resolves to []', async () => {
    const key = await env.freshKey();
    const geo = geocoder('openstreetmap', 'nominatim');
    const results = await settlesWithin(geo.geocode({ q: 'xqzzyqxq', key }), 'node-geocoder openstreetmap');
    expect([...results]).toEqual([]);
  });
});

describe('@googlemaps/google-maps-services-js geocode() against the Google host', () => {
  const client = new Client({});
  const geocode = (params: Record<string, unknown>) =>
    settlesWithin(
      client.geocode({ params: params as never, url: `${env.url('google')}/maps/api/geocode/json` }),
      'google client',
    );

  it('geocodes "Paris" with a country component to Paris, FR (OK, results best first)', async () => {
    const key = await env.freshKey();
    const res = await geocode({ address: 'Paris', components: { country: 'FR' }, key });
    expect(res.data.status).toBe('OK');
    const first = res.data.results[0];
    expect(first?.formatted_address).toMatch(/^Paris, /);
    const country = first?.address_components.find((c) => (c.types as string[]).includes('country'));
    expect(country?.short_name).toBe('FR');
    expect(first?.geometry.location.lat).toBeCloseTo(48.85, 1);
  });

  it('a text that matches nothing is ZERO_RESULTS (the client resolves, empty list)', async () => {
    const key = await env.freshKey();
    const res = await geocode({ address: 'xqzzyqxq', key });
    expect(res.data.status).toBe('ZERO_RESULTS');
    expect(res.data.results).toEqual([]);
  });

  it('an unknown key is REQUEST_DENIED, the client rejects with its own 403', async () => {
    const result = await outcome(geocode({ address: 'Paris', key: env.unknownKey }));
    expect(result.ok).toBe(false);
    const err = (result as { error: { response?: { status: number; data: { status: string } } } }).error;
    expect(err.response?.status).toBe(403);
    expect(err.response?.data.status).toBe('REQUEST_DENIED');
  });
});

describe('@mapbox/mapbox-sdk forwardGeocode() against the Mapbox host', () => {
  it('v5: "Paris" limited to FR, features best first with relevance, the query words echoed', async () => {
    const key = await env.freshKey();
    const client = mbxClient({ accessToken: token(key), origin: env.url('mapbox') });
    const res = await settlesWithin(
      mbxGeocoding(client)
        .forwardGeocode({ query: 'Paris', countries: ['fr'], limit: 3 })
        .send(),
      'mapbox v5 forward',
    );
    expect(res.statusCode).toBe(200);
    expect(res.body.query).toEqual(['paris']);
    expect(res.body.features.length).toBeGreaterThan(0);
    expect(res.body.features.length).toBeLessThanOrEqual(3);
    const first = res.body.features[0];
    expect(first?.place_name).toMatch(/^Paris, /);
    expect(first?.relevance).toBe(1);
    expect(first?.context?.find((c) => c.id.startsWith('country.'))?.short_code).toBe('fr');
  });

  it('v6: "Paris" to a place feature in France', async () => {
    const key = await env.freshKey();
    const client = mbxClient({ accessToken: token(key), origin: env.url('mapbox') });
    const res = await settlesWithin(
      mbxGeocodingV6(client).forwardGeocode({ query: 'Paris', limit: 2 }).send(),
      'mapbox v6 forward',
    );
    expect(res.statusCode).toBe(200);
    const first = res.body.features[0];
    expect(first?.properties['feature_type']).toBe('place');
    expect(first?.properties.context?.['country']?.country_code).toBe('FR');
  });

  it('v5: a text that matches nothing is an empty FeatureCollection', async () => {
    const key = await env.freshKey();
    const client = mbxClient({ accessToken: token(key), origin: env.url('mapbox') });
    const res = await settlesWithin(
      mbxGeocoding(client).forwardGeocode({ query: 'xqzzyqxq' }).send(),
      'mapbox v5 forward',
    );
    expect(res.body.features).toEqual([]);
  });
});

/** node-geocoder providers with a key option, each on its drop-in host, geocoding "Paris" (their own forward call). */
const PROVIDERS: readonly [string, string, string][] = [
  ['google', 'google', 'Paris, France'],
  ['mapbox', 'mapbox', 'Paris'],
  ['opencage', 'opencage', 'Paris'],
  ['locationiq', 'locationiq', 'Paris'],
  ['here', 'here', 'Paris'],
  ['virtualearth', 'bing', 'Paris'],
  ['geocodio', 'geocodio', 'Paris'],
];

describe.each(PROVIDERS)('node-geocoder %s geocode() against the %s host', (provider, adapter, text) => {
  it(`geocodes "${text}" to Paris, France first`, async () => {
    const key = await env.freshKey();
    const geo = geocoder(provider, adapter, { apiKey: key });
    const results = await settlesWithin(geo.geocode(text), `node-geocoder ${provider}`);
    expect(results.length).toBeGreaterThan(0);
    const first = results[0] as GeocoderResult;
    expect(first.latitude).toBeCloseTo(48.85, 1);
    expect(first.longitude).toBeCloseTo(2.35, 1);
    expect(String(first.countryCode ?? first.country).toUpperCase()).toMatch(/^(FR|FRANCE)$/);
  });
});
