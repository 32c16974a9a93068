/**
 * node-geocoder 4.4.1, unmodified, against the drop-in hosts (issue 5): its google, mapbox, openstreetmap, locationiq,
 * opencage, here, virtualearth and geocodio providers, redirected with the library's own `fetch` option
 * (providers.md 2.0). Each: a reverse geocode of central Paris, an unknown key, and an exhausted allowance (rule set
 * B: one free request, no credit, 429/403 per the adapter's D24 table).
 */
import { call } from '../../helpers/gateway-harness';
import {
  outcome,
  PARIS,
  settlesWithin,
  startDropIns,
  watchUnhandledRejections,
  type DropIns,
} from './harness';

interface GeocoderResult {
  city?: string;
  country?: string;
  countryCode?: string;
  latitude?: number;
  longitude?: number;
  formattedAddress?: string;
}
interface Geocoder {
  reverse(query: Record<string, unknown>): Promise<GeocoderResult[]>;
}
// node-geocoder ships no types; it is used exactly as its README shows.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const NodeGeocoder = require('node-geocoder') as (options: Record<string, unknown>) => Geocoder;
/** node-fetch 2, the HTTP stack node-geocoder itself uses. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFetch = require('node-fetch') as (url: string, options: unknown) => Promise<{ status: number }>;

/**
 * How each provider's client reacts to an error body (providers.md 2.1, run): `reject` surfaces it as an Error,
 * `empty` resolves [] (the client never reports errors), `crash` throws inside bluebird and hangs, so for those the
 * test replays the client's own request over HTTP and checks the provider-shaped answer instead of calling the client.
 */
type ErrorBehaviour = 'reject' | 'empty' | 'crash';

interface Case {
  provider: string;
  adapter: string;
  errors: ErrorBehaviour;
  /** Extra reverse() query members; openstreetmap sends no key unless the query object carries one. */
  keyInQuery?: boolean;
  /** Country as this provider's formatter reports it. */
  country: (r: GeocoderResult) => string | undefined;
  /** Statuses of the unknown-key and exhausted refusals on the wire (the D24 table of the adapter). */
  wire: { invalid: number; exhausted: number };
}

const CASES: Case[] = [
  {
    provider: 'google',
    adapter: 'google',
    errors: 'reject',
    country: (r) => r.countryCode,
    wire: { invalid: 200, exhausted: 200 },
  },
  {
    provider: 'mapbox',
    adapter: 'mapbox',
    errors: 'empty',
    country: (r) => r.countryCode,
    wire: { invalid: 401, exhausted: 429 },
  },
  {
    provider: 'openstreetmap',
    adapter: 'nominatim',
    errors: 'reject',
    keyInQuery: true,
    country: (r) => r.countryCode,
    wire: { invalid: 401, exhausted: 429 },
  },
  {
    provider: 'locationiq',
    adapter: 'locationiq',
    errors: 'empty',
    country: (r) => r.countryCode,
    wire: { invalid: 401, exhausted: 429 },
  },
  {
    provider: 'opencage',
    adapter: 'opencage',
    errors: 'empty',
    country: (r) => r.countryCode?.toUpperCase(),
    wire: { invalid: 401, exhausted: 402 },
  },
  {
    provider: 'here',
    adapter: 'here',
    errors: 'crash',
    country: (r) => r.countryCode,
    wire: { invalid: 401, exhausted: 429 },
  },
  {
    provider: 'virtualearth',
    adapter: 'bing',
    errors: 'crash',
    country: (r) => r.country,
    wire: { invalid: 401, exhausted: 429 },
  },
  {
    provider: 'geocodio',
    adapter: 'geocodio',
    errors: 'crash',
    country: (r) => r.country,
    wire: { invalid: 403, exhausted: 403 },
  },
];

let env: DropIns;
const rejections = watchUnhandledRejections();

beforeAll(async () => {
  env = await startDropIns(CASES.map((c) => c.adapter));
}, 60_000);

afterAll(async () => {
  rejections.stop();
  await env?.close();
});

afterEach(() => {
  expect(rejections.fired).toEqual([]);
});

/** A node-geocoder instance whose requests go to the drop-in host; it records what went over the wire. */
function geocoder(c: Case, key: string): { geo: Geocoder; wire: { url: string; status: number }[] } {
  const base = env.url(c.adapter);
  const wire: { url: string; status: number }[] = [];
  const fetch = async (url: string, options: Record<string, unknown>) => {
    const u = new URL(url);
    const target = `${base}${u.pathname}${u.search}`;
    const res = await nodeFetch(target, options);
    wire.push({ url: target, status: res.status });
    return res;
  };
  const geo = NodeGeocoder({ provider: c.provider, ...(c.keyInQuery ? {} : { apiKey: key }), fetch });
  return { geo, wire };
}

function reverse(c: Case, geo: Geocoder, key: string): Promise<GeocoderResult[]> {
  return settlesWithin(
    geo.reverse({ ...PARIS, ...(c.keyInQuery ? { key } : {}) }),
    `node-geocoder ${c.provider}`,
  );
}

describe.each(CASES.map((c) => [c.provider, c]))('node-geocoder %s against the drop-in host', (_name, c) => {
  it('reverse-geocodes central Paris to FR and a Paris locality', async () => {
    const key = await env.freshKey();
    const { geo, wire } = geocoder(c, key);
    const results = await reverse(c, geo, key);
    expect(results.length).toBeGreaterThan(0);
    const first = results[0] as GeocoderResult;
    expect(c.country(first)).toMatch(/^(FR|France)$/);
    expect(first.city).toMatch(/Paris/);
    expect(first.latitude).toBeCloseTo(PARIS.lat, 0);
    expect(wire.map((w) => w.status)).toEqual([200]);
  });

  it('surfaces an unknown key as the client does, with the provider-shaped refusal on the wire', async () => {
    if (c.errors === 'crash') {
      const key = await env.freshKey();
      const good = geocoder(c, key);
      await reverse(c, good.geo, key);
      const url = (good.wire[0] as { url: string }).url.replace(key, env.unknownKey);
      const answer = await call(url, '');
      expect(answer.status).toBe(c.wire.invalid);
      expect(answer.text).not.toContain(env.unknownKey);
      return;
    }
    const { geo, wire } = geocoder(c, env.unknownKey);
    const result = await outcome(reverse(c, geo, env.unknownKey));
    if (c.errors === 'reject') {
      expect(result.ok).toBe(false);
      expect((result as { error: Error }).error).toBeInstanceOf(Error);
      expect((result as { error: Error }).error.message).not.toBe('[object Object]');
    } else {
      expect(result).toEqual({ ok: true, value: [] });
    }
    expect(wire.map((w) => w.status)).toEqual([c.wire.invalid]);
  });

  it('surfaces an exhausted allowance as the client does, with the provider-shaped refusal on the wire', async () => {
    const key = await env.freshKey();
    const { geo, wire } = geocoder(c, key);
    await reverse(c, geo, key); // the one free request of the day
    if (c.errors === 'crash') {
      const answer = await call((wire[0] as { url: string }).url, '');
      expect(answer.status).toBe(c.wire.exhausted);
      expect(answer.text).not.toContain(key);
      return;
    }
    const result = await outcome(reverse(c, geo, key));
    if (c.errors === 'reject') {
      expect(result.ok).toBe(false);
      expect((result as { error: Error }).error).toBeInstanceOf(Error);
    } else {
      expect(result).toEqual({ ok: true, value: [] });
    }
    expect(wire.map((w) => w.status)).toEqual([200, c.wire.exhausted]);
  });
});
