/**
 * Issue 16 item 6, the JavaScript clients: the two cases their own files do not cover, **no key** (on hosts that
 * require one, `anonymous: false`) and **no credit** (rule set A: the one free request is used and the balance is
 * empty → `no_credits`), for node-geocoder 4.4.1 (google, mapbox, openstreetmap, locationiq, opencage, here,
 * virtualearth, geocodio), @googlemaps/google-maps-services-js 3.4.2, @mapbox/mapbox-sdk 0.16.2 and node-ipinfo
 * 4.4.0, each unmodified and pointed at the drop-in host as in their own test files. Success, invalid key and
 * allowance used are in those files (node-geocoder.test.ts, google-maps-services.test.ts, mapbox-sdk.test.ts,
 * node-ipinfo.test.ts). A client that refuses to run without a key is asserted as such (the case cannot be sent).
 * docs/adapters.md lists every cell.
 */
import { Client } from '@googlemaps/google-maps-services-js';
import { ApiLimitError, IPinfoWrapper } from 'node-ipinfo';
import { outcome, PARIS, settlesWithin, useDropIns, useFaultWatch, type DropIns } from '../harness';

interface GeocoderResult {
  countryCode?: string;
  country?: string;
}
interface Geocoder {
  reverse(query: Record<string, unknown>): Promise<GeocoderResult[]>;
}
interface FetchResponse {
  status: number;
  clone(): { text(): Promise<string> };
}
interface MapiError {
  type: string;
  statusCode: number;
}
interface AxiosLike {
  isAxiosError?: boolean;
  response?: { status: number; data: { status: string } };
}
// The libraries ship no types (node-geocoder, node-fetch 2, mapbox-sdk); they are used as their READMEs show.
/* eslint-disable @typescript-eslint/no-require-imports */
const NodeGeocoder = require('node-geocoder') as (options: Record<string, unknown>) => Geocoder;
const nodeFetch = require('node-fetch') as (url: string, options: unknown) => Promise<FetchResponse>;
const mbxClient = require('@mapbox/mapbox-sdk') as (o: { accessToken?: string; origin: string }) => unknown;
const mbxGeocoding = require('@mapbox/mapbox-sdk/services/geocoding') as (c: unknown) => {
  reverseGeocode(o: { query: [number, number]; limit?: number }): { send(): Promise<unknown> };
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** What a node-geocoder provider does in the two cases, and the statuses on the wire (the adapter's D24 table). */
interface NodeGeocoderCase {
  provider: string;
  adapter: string;
  /** The key goes in the reverse() query (openstreetmap), not the constructor. */
  keyInQuery?: boolean;
  /** Without a key: the constructor's refusal (nothing sent), or the error the client rejects with. */
  noKey: { refusesToRun: RegExp } | { rejects: RegExp; wire: number };
  /** No credit: `reject` (an Error with this message) or `empty` (resolves [], the client never reports errors). */
  noCredit: { rejects: RegExp; wire: number } | { empty: true; wire: number };
}

const NODE_GEOCODER: NodeGeocoderCase[] = [
  {
    provider: 'google',
    adapter: 'google',
    noKey: { rejects: /^Status is REQUEST_DENIED\. /, wire: 200 },
    noCredit: { rejects: /^Status is OVER_DAILY_LIMIT\. /, wire: 200 },
  },
  {
    provider: 'mapbox',
    adapter: 'mapbox',
    noKey: { refusesToRun: /^You must specify apiKey to use MapBox Geocoder$/ },
    noCredit: { empty: true, wire: 402 },
  },
  {
    provider: 'openstreetmap',
    adapter: 'nominatim',
    keyInQuery: true,
    noKey: { rejects: /^This host requires an API key\.$/, wire: 401 },
    noCredit: {
      rejects: /^The daily free allowance is used up and the account balance is empty\.$/,
      wire: 402,
    },
  },
  {
    provider: 'locationiq',
    adapter: 'locationiq',
    noKey: { refusesToRun: /^LocationIQGeocoder needs an apiKey$/ },
    noCredit: { empty: true, wire: 429 },
  },
  {
    provider: 'opencage',
    adapter: 'opencage',
    noKey: { refusesToRun: /^OpenCageGeocoder needs an apiKey$/ },
    noCredit: { empty: true, wire: 402 },
  },
  {
    provider: 'here',
    adapter: 'here',
    noKey: { refusesToRun: /^You must specify apiKey to use Here Geocoder$/ },
    noCredit: { empty: true, wire: 402 },
  },
  {
    provider: 'virtualearth',
    adapter: 'bing',
    noKey: { refusesToRun: /^You must specify an apiKey$/ },
    noCredit: { empty: true, wire: 402 },
  },
  {
    provider: 'geocodio',
    adapter: 'geocodio',
    noKey: { refusesToRun: /^GeocodioGeocoder needs an apiKey$/ },
    noCredit: { empty: true, wire: 403 },
  },
];

const ADAPTERS = [...new Set([...NODE_GEOCODER.map((c) => c.adapter), 'ipinfo'])];

useFaultWatch();
jest.setTimeout(30_000);

/** Rule set B, every drop-in host requires a key. */
const keyed = useDropIns(ADAPTERS, { anonymous: false });
/** Rule set A, one free request a day, fresh accounts have no balance. */
const ruleSetA = useDropIns(ADAPTERS, { policy: 'A' });
// Rule set A also counts the caller's network (D5): every test starts on a new day so its first request is free.
beforeEach(() => ruleSetA.harness.clock.advance(86_400_000));

/** A node-geocoder instance aimed at the drop-in host (its own `fetch` option); records the wire statuses. */
function nodeGeocoder(
  env: DropIns,
  c: NodeGeocoderCase,
  key: string | null,
): { geo: Geocoder; wire: number[] } {
  const base = env.url(c.adapter);
  const wire: number[] = [];
  const fetch = async (url: string, options: Record<string, unknown>) => {
    const u = new URL(url);
    const res = await nodeFetch(`${base}${u.pathname}${u.search}`, options);
    wire.push(res.status);
    return res;
  };
  const withKey = key !== null && !c.keyInQuery ? { apiKey: key } : {};
  return { geo: NodeGeocoder({ provider: c.provider, ...withKey, fetch }), wire };
}

function reverse(c: NodeGeocoderCase, geo: Geocoder, key: string | null): Promise<GeocoderResult[]> {
  const query = { ...PARIS, ...(c.keyInQuery && key !== null ? { key } : {}) };
  return settlesWithin(geo.reverse(query), `node-geocoder ${c.provider}`);
}

describe.each(NODE_GEOCODER.map((c) => [c.provider, c] as const))('node-geocoder %s', (_name, c) => {
  it('no key (a host that requires one)', async () => {
    const expected = c.noKey;
    if ('refusesToRun' in expected) {
      // The client refuses to be built without a key: nothing can be sent, so the case cannot be expressed.
      expect(() => nodeGeocoder(keyed, c, null)).toThrow(expected.refusesToRun);
      return;
    }
    const { geo, wire } = nodeGeocoder(keyed, c, null);
    const settled = await outcome(reverse(c, geo, null));
    expect(settled.ok).toBe(false);
    const error = (settled as { error: Error }).error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(expected.rejects);
    expect(wire).toEqual([expected.wire]);
  });

  it('no credit (rule set A: the free request is used, no balance)', async () => {
    const key = await ruleSetA.freshKey();
    const { geo, wire } = nodeGeocoder(ruleSetA, c, key);
    const first = (await reverse(c, geo, key))[0];
    // Each provider's formatter fills countryCode or only country (virtualearth, geocodio).
    expect(first?.countryCode?.toUpperCase() ?? first?.country).toMatch(/^(FR|France)$/);
    const settled = await outcome(reverse(c, geo, key));
    const expected = c.noCredit;
    if ('empty' in expected) {
      expect(settled).toEqual({ ok: true, value: [] });
    } else {
      expect(settled.ok).toBe(false);
      const error = (settled as { error: Error }).error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(expected.rejects);
      expect(error.message).not.toContain(key);
    }
    expect(wire).toEqual([200, expected.wire]);
  });
});

describe('@googlemaps/google-maps-services-js', () => {
  const client = new Client({});
  const reverseGoogle = (env: DropIns, key: string | null) =>
    settlesWithin(
      client.reverseGeocode({
        // The client's params type requires a key; a request without one is what this case sends.
        params: { latlng: [PARIS.lat, PARIS.lon], ...(key === null ? {} : { key }) } as {
          latlng: [number, number];
          key: string;
        },
        url: `${env.url('google')}/maps/api/geocode/json`,
      }),
      'google client',
    );

  it('no key: rejects with its own error, 403 REQUEST_DENIED', async () => {
    const result = await outcome(reverseGoogle(keyed, null));
    expect(result.ok).toBe(false);
    const err = (result as { error: AxiosLike }).error;
    expect(err.isAxiosError).toBe(true);
    expect(err.response?.status).toBe(403);
    expect(err.response?.data.status).toBe('REQUEST_DENIED');
  });

  it('no credit: rejects with its own error, 429 OVER_DAILY_LIMIT', async () => {
    const key = await ruleSetA.freshKey();
    expect((await reverseGoogle(ruleSetA, key)).data.status).toBe('OK');
    const result = await outcome(reverseGoogle(ruleSetA, key));
    expect(result.ok).toBe(false);
    const err = (result as { error: AxiosLike }).error;
    expect(err.isAxiosError).toBe(true);
    expect(err.response?.status).toBe(429);
    expect(err.response?.data.status).toBe('OVER_DAILY_LIMIT');
  });
});

describe('@mapbox/mapbox-sdk', () => {
  it('no key: the client refuses to be built without an access token (nothing can be sent)', () => {
    expect(() => mbxClient({ origin: keyed.url('mapbox') })).toThrow(
      'Cannot create a client without an access token',
    );
  });

  it('no credit: rejects with a MapiError 402', async () => {
    const key = await ruleSetA.freshKey();
    const client = mbxClient({
      accessToken: `pk.eyJ1IjoiZ2VvZ2F0ZSJ9.${key}`,
      origin: ruleSetA.url('mapbox'),
    });
    const send = () =>
      settlesWithin(
        mbxGeocoding(client)
          .reverseGeocode({ query: [PARIS.lon, PARIS.lat], limit: 1 })
          .send(),
        'mapbox v5',
      );
    expect((await outcome(send())).ok).toBe(true);
    const result = await outcome(send());
    expect(result.ok).toBe(false);
    expect((result as { error: MapiError }).error).toMatchObject({ type: 'HttpError', statusCode: 402 });
  });
});

describe('node-ipinfo', () => {
  const lookup = (env: DropIns, key: string | undefined, ip: string) =>
    settlesWithin(
      new IPinfoWrapper(key as string, undefined, undefined, undefined, env.url('ipinfo')).lookupIp(ip),
      'node-ipinfo',
    );

  it('no key: sends "Authorization: Bearer undefined", refused 403 as a malformed key (a generic Error)', async () => {
    const result = await outcome(lookup(keyed, undefined, '8.8.8.8'));
    expect(result.ok).toBe(false);
    const err = (result as { error: Error }).error;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ApiLimitError);
    expect(err.message).toMatch(/Bearer undefined\) 403 /);
  });

  it('no credit: rejects with the client ApiLimitError (429)', async () => {
    const key = await ruleSetA.freshKey();
    expect(((await lookup(ruleSetA, key, '8.8.8.8')) as unknown as Record<string, unknown>)['ip']).toBe(
      '8.8.8.8',
    );
    const result = await outcome(lookup(ruleSetA, key, '1.1.1.1'));
    expect(result.ok).toBe(false);
    expect((result as { error: Error }).error).toBeInstanceOf(ApiLimitError);
  });
});
