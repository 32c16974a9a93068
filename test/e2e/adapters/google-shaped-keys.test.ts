/**
 * D28 through the real gateway and backend: the Google-shaped presentation of a key (`AIza` + the same secret) works
 * with the unmodified Google clients (@googlemaps/google-maps-services-js, node-geocoder google) and is the same key
 * on every host: one counter (rule set B, two free requests per account per day). Also issue 16 item 2 on the wire:
 * the Geocodio daily-maximum sentence and TomTom's "Developer Over Qps" lead the allowance refusals.
 */
import { Client } from '@googlemaps/google-maps-services-js';
import { googleKey } from '../../../gateway/core/keys';
import { call } from '../../helpers/gateway-harness';
import { outcome, PARIS, settlesWithin, startDropIns, watchProcessFaults, type DropIns } from './harness';

interface Geocoder {
  reverse(query: Record<string, unknown>): Promise<{ countryCode?: string }[]>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const NodeGeocoder = require('node-geocoder') as (options: Record<string, unknown>) => Geocoder;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFetch = require('node-fetch') as (url: string, options: unknown) => Promise<unknown>;

let env: DropIns;
const faults = watchProcessFaults();
const client = new Client({});

beforeAll(async () => {
  env = await startDropIns(['google', 'geocodio', 'tomtom'], { freePerDay: 2 });
}, 60_000);

afterAll(async () => {
  faults.stop();
  await env?.close();
});

afterEach(() => {
  expect(faults.fired.splice(0)).toEqual([]);
});

function official(key: string) {
  const url = `${env.url('google')}/maps/api/geocode/json`;
  return settlesWithin(
    client.reverseGeocode({ params: { latlng: [PARIS.lat, PARIS.lon], key }, url, raxConfig: { retry: 0 } }),
    'google client',
  );
}

function nodeGeocoder(key: string): Geocoder {
  const base = env.url('google');
  const fetch = (url: string, options: unknown) => {
    const u = new URL(url);
    return nodeFetch(`${base}${u.pathname}${u.search}`, options);
  };
  return NodeGeocoder({ provider: 'google', apiKey: key, fetch });
}

describe('Google-shaped keys (D28)', () => {
  it('are accepted by the official client and node-geocoder google', async () => {
    const key = googleKey(await env.freshKey());
    expect(key.startsWith('AIza')).toBe(true);
    const res = await official(key);
    expect([res.status, res.data.status]).toEqual([200, 'OK']);
    const results = await settlesWithin(nodeGeocoder(key).reverse(PARIS), 'node-geocoder google');
    expect(results[0]?.countryCode).toBe('FR');
  });

  it('are the same key as the gk_ form on every host: one counter', async () => {
    const native = await env.freshKey();
    const google = googleKey(native);
    expect((await official(google)).data.status).toBe('OK');
    const main = await call(env.harness.mainUrl, `/v1/reverse?lat=${PARIS.lat}&lon=${PARIS.lon}`, {
      headers: { host: 'localhost', 'x-api-key': google },
    });
    expect(main.status).toBe(200);
    expect(main.headers['x-quota-used']).toBe('2'); // both requests on one counter
    const third = await outcome(official(native));
    expect(third.ok).toBe(false);
    const err = (third as { error: { response?: { status: number; data: { status: string } } } }).error;
    expect([err.response?.status, err.response?.data.status]).toEqual([429, 'OVER_QUERY_LIMIT']);
  });

  it('an unknown Google-shaped key is refused REQUEST_DENIED, never echoed', async () => {
    const key = googleKey(env.unknownKey);
    const result = await outcome(official(key));
    const err = (result as { error: { response?: { status: number; data: Record<string, string> } } }).error;
    expect([err.response?.status, err.response?.data['status']]).toEqual([403, 'REQUEST_DENIED']);
    expect(err.response?.data['error_message']).toBe('The provided API key is invalid.');
    expect(JSON.stringify(err.response?.data)).not.toContain(key.slice(4));
  });
});

describe('provider texts the clients read, on the wire (issue 16 item 2)', () => {
  async function exhaust(adapter: string, path: (key: string) => string) {
    const key = await env.freshKey();
    for (let i = 0; i < 2; i++) expect((await call(env.url(adapter), path(key))).status).toBe(200);
    return call(env.url(adapter), path(key));
  }

  it('Geocodio: 403 whose error leads with "above your daily maximum" (geopy GeocoderQuotaExceeded)', async () => {
    const r = await exhaust('geocodio', (k) => `/v1.6/reverse?q=${PARIS.lat},${PARIS.lon}&api_key=${k}`);
    expect(r.status).toBe(403);
    expect(r.json.error).toMatch(/^You can't make this request as it is above your daily maximum\. \S/);
  });

  it('TomTom: 403 whose body holds "Developer Over Qps" (geopy GeocoderQuotaExceeded)', async () => {
    const r = await exhaust(
      'tomtom',
      (k) => `/search/2/reverseGeocode/${PARIS.lat}%2C${PARIS.lon}.json?key=${k}`,
    );
    expect(r.status).toBe(403);
    expect(r.text).toContain('Developer Over Qps');
  });
});
