/**
 * Forward lookups end to end (issue 11 item 4): real, unmodified clients against the real gateway and backend
 * processes (our backend's GeoNames place search). Each client geocodes "Paris" through its drop-in host and reads
 * the French capital first; a text that matches nothing resolves to the client's own "no result".
 */
import { call, settlesWithin, useDropIns, useFaultWatch } from '../harness';

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

useFaultWatch();
jest.setTimeout(30_000);

const env = useDropIns(['nominatim'], { freePerDay: 100 });

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
