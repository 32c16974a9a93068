/**
 * node-geocoder 4.4.1, unmodified, against the drop-in hosts (issue 5): its google, mapbox, openstreetmap, locationiq,
 * opencage, here, virtualearth and geocodio providers, redirected with the library's own `fetch` option
 * (providers.md 2.0). Each: a reverse geocode of central Paris, an unknown key, and an exhausted allowance (rule set
 * B: one free request, no credit, 429/403 per the adapter's D24 table). Every refusal goes through the real client:
 * it must settle with the client's own outcome (an Error, or [] for providers whose errors it never reports) and no
 * uncaught exception or unhandled rejection may fire in the process.
 */
import { outcome, PARIS, settlesWithin, useDropIns, useFaultWatch } from '../harness';

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
/** The part of a node-fetch 2 response the test reads. */
interface FetchResponse {
  status: number;
  clone(): { text(): Promise<string> };
}
/** node-fetch 2, the HTTP stack node-geocoder itself uses. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFetch = require('node-fetch') as (url: string, options: unknown) => Promise<FetchResponse>;

/**
 * How each provider's client reacts to an error body (providers.md 2.1, run): `reject` surfaces it as an Error,
 * `empty` resolves [] (the client never reports errors for that provider, against the real service too). here,
 * virtualearth and geocodio read a success member on every body without checking the status; their drop-in hosts
 * add that member, empty, to the provider's own error so the client resolves [] instead of throwing.
 */
type ErrorBehaviour = 'reject' | 'empty';

/** The body of a refusal as the host sent it (checked exactly, with `expect.any` for free-text details). */
interface ErrorBodies {
  invalid: Record<string, unknown>;
  exhausted: Record<string, unknown>;
}

interface Case {
  provider: string;
  adapter: string;
  errors: ErrorBehaviour;
  /** For `reject`: the message of the Error for the unknown key and the exhausted allowance. */
  message?: { invalid: RegExp; exhausted: RegExp };
  /** Extra reverse() query members; openstreetmap sends no key unless the query object carries one. */
  keyInQuery?: boolean;
  /** Country as this provider's formatter reports it. */
  country: (r: GeocoderResult) => string | undefined;
  /** Statuses of the unknown-key and exhausted refusals on the wire (the D24 table of the adapter). */
  wire: { invalid: number; exhausted: number };
  /** The provider-shaped refusal bodies on the wire, where the test checks them. */
  bodies?: ErrorBodies;
}

const text = expect.any(String);
/** HERE legacy 6.2 auth error plus the empty `Response.View` node-geocoder reads (adapters/here.ts). */
const hereError = (error: string) => ({ error, error_description: text, Response: { View: [] } });
/** Bing's error envelope with one empty resource set (adapters/bing.ts). */
const bingError = (statusCode: number, auth: string, statusDescription: string) => ({
  authenticationResultCode: auth,
  copyright: '',
  statusCode,
  statusDescription,
  errorDetails: [text],
  resourceSets: [{ estimatedTotal: 0, resources: [] }],
});

const CASES: Case[] = [
  {
    provider: 'google',
    adapter: 'google',
    errors: 'reject',
    message: { invalid: /^Status is REQUEST_DENIED\. /, exhausted: /^Status is OVER_QUERY_LIMIT\. / },
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
    message: { invalid: /^The API key is not valid\.$/, exhausted: /^The daily free allowance is used up/ },
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
    errors: 'empty',
    country: (r) => r.countryCode,
    wire: { invalid: 401, exhausted: 429 },
    bodies: { invalid: hereError('Unauthorized'), exhausted: hereError('Too Many Requests') },
  },
  {
    provider: 'virtualearth',
    adapter: 'bing',
    errors: 'empty',
    country: (r) => r.country,
    wire: { invalid: 401, exhausted: 429 },
    bodies: {
      invalid: bingError(401, 'InvalidCredentials', 'Unauthorized'),
      exhausted: bingError(429, 'ValidCredentials', 'Too Many Requests'),
    },
  },
  {
    provider: 'geocodio',
    adapter: 'geocodio',
    errors: 'empty',
    country: (r) => r.country,
    wire: { invalid: 403, exhausted: 403 },
    bodies: { invalid: { error: text, results: [] }, exhausted: { error: text, results: [] } },
  },
];

// Uncaught exceptions and unhandled rejections of the real process; removed in afterAll.
useFaultWatch();
// A hung client fails through settlesWithin (10 s) before Jest's own timeout does.
jest.setTimeout(30_000);

const env = useDropIns(CASES.map((c) => c.adapter));

/** How a reverse() call ended (see `outcome`). */
type Settled = { ok: true; value: GeocoderResult[] } | { ok: false; error: unknown };

/** One answer of the drop-in host as the client received it. */
interface WireAnswer {
  url: string;
  status: number;
  body: string;
}

/** A node-geocoder instance whose requests go to the drop-in host; it records what went over the wire. */
function geocoder(c: Case, key: string): { geo: Geocoder; wire: WireAnswer[] } {
  const base = env.url(c.adapter);
  const wire: WireAnswer[] = [];
  const fetch = async (url: string, options: Record<string, unknown>) => {
    const u = new URL(url);
    const target = `${base}${u.pathname}${u.search}`;
    const res = await nodeFetch(target, options);
    // A clone, so the client still reads the untouched body.
    wire.push({ url: target, status: res.status, body: await res.clone().text() });
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

/**
 * The refusal as the client surfaced it and as the host sent it: the promise settled (settlesWithin), with the exact
 * outcome of this provider's client, the D24 status and, where checked, the provider's error body without the key.
 */
function expectRefusal(
  c: Case,
  kind: 'invalid' | 'exhausted',
  settled: Settled,
  answer: WireAnswer,
  key: string,
): void {
  if (c.errors === 'reject') {
    expect(settled.ok).toBe(false);
    const error = (settled as { error: Error }).error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch((c.message as Record<typeof kind, RegExp>)[kind]);
  } else {
    // Resolved to an empty list (not a timeout, not a rejection); the client parsed the host's error body.
    expect(settled).toEqual({ ok: true, value: [] });
    if (c.bodies)
      expect((settled as { value: { raw?: unknown } }).value.raw).toEqual(JSON.parse(answer.body));
  }
  expect(answer.status).toBe(c.wire[kind]);
  if (c.bodies) expect(JSON.parse(answer.body)).toEqual(c.bodies[kind]);
  expect(answer.body).not.toContain(key);
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

  it('surfaces an unknown key as the client does (settles, no process fault), the provider refusal on the wire', async () => {
    const { geo, wire } = geocoder(c, env.unknownKey);
    const settled = await outcome(reverse(c, geo, env.unknownKey));
    expect(wire.map((w) => w.status)).toEqual([c.wire.invalid]);
    expectRefusal(c, 'invalid', settled, wire[0] as WireAnswer, env.unknownKey);
  });

  it('surfaces an exhausted allowance as the client does (settles, no process fault), the provider refusal on the wire', async () => {
    const key = await env.freshKey();
    const { geo, wire } = geocoder(c, key);
    await reverse(c, geo, key); // the one free request of the day
    const settled = await outcome(reverse(c, geo, key));
    expect(wire.map((w) => w.status)).toEqual([200, c.wire.exhausted]);
    expectRefusal(c, 'exhausted', settled, wire[1] as WireAnswer, key);
  });
});
