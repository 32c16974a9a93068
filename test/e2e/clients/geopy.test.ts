/**
 * geopy 2.3.0 from Debian (python3-geopy), unmodified, against the drop-in hosts (issue 16 item 6). Each geocoder is
 * given the drop-in host through its own `domain` + `scheme` options, or, where geopy hard-codes the provider's host
 * (Bing, HereV7, Geocodio), through its own `proxies` option and the forward proxy of env.ts. For each: a reverse
 * geocode of central Paris, an unknown key, no key, no credit (rule set A: 402 no_credits) and a used daily
 * allowance (rule set B: quota_exceeded), each asserting the exception class geopy itself raises.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES, expressible, type Expected } from './cases';
import {
  PARIS,
  PYTHON,
  runScript,
  startClientEnv,
  type ClientEnv,
  type Gateway,
  type ScriptOutput,
} from './env';

/** How a geocoder reaches a listener: its own base-URL options, or geopy's `proxies` option. */
type Reach = 'domain' | 'proxy';

interface GeopyClient {
  service: string;
  /** The geocoder's class name, as in the docs table. */
  name: string;
  adapter: string;
  reach: Reach;
  /** The constructor argument that carries the key (absent: the client has no key parameter). */
  keyArg?: string;
  /** The geopy exception class for each refusal case, or why the case cannot be expressed. */
  invalid: Expected<string>;
  noKey: Expected<string>;
  noCredit: Expected<string>;
  used: Expected<string>;
}

const NO_KEY_PARAM =
  'the client has no key parameter (the provider has no keys); served by the anonymous allowance';

const GEOPY_CLIENTS: GeopyClient[] = [
  {
    service: 'nominatim',
    name: 'Nominatim',
    adapter: 'nominatim',
    reach: 'domain',
    invalid: { cannot: NO_KEY_PARAM },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { cannot: NO_KEY_PARAM },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'photon',
    name: 'Photon',
    adapter: 'photon',
    reach: 'domain',
    invalid: { cannot: NO_KEY_PARAM },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { cannot: NO_KEY_PARAM },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'googlev3',
    name: 'GoogleV3',
    adapter: 'google',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderQueryError' },
    noKey: { error: 'ConfigurationError' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderQuotaExceeded' },
  },
  {
    service: 'mapbox',
    name: 'MapBox',
    adapter: 'mapbox',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'herev7',
    name: 'HereV7',
    adapter: 'here',
    reach: 'proxy',
    keyArg: 'apikey',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'opencage',
    name: 'OpenCage',
    adapter: 'opencage',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderQuotaExceeded' },
  },
  {
    service: 'geocodio',
    name: 'Geocodio',
    adapter: 'geocodio',
    reach: 'proxy',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderInsufficientPrivileges' },
    noKey: { error: 'GeocoderInsufficientPrivileges' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderQuotaExceeded' },
  },
  {
    service: 'tomtom',
    name: 'TomTom',
    adapter: 'tomtom',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderInsufficientPrivileges' },
    noKey: { error: 'GeocoderInsufficientPrivileges' },
    // The refusal leads with TomTom's "Developer Over Qps", the text geopy reads for a quota (tomtom.py).
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderQuotaExceeded' },
  },
  {
    service: 'bing',
    name: 'Bing',
    adapter: 'bing',
    reach: 'proxy',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderQuotaExceeded' },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'pelias',
    name: 'Pelias',
    adapter: 'pelias',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderInsufficientPrivileges' },
    used: { error: 'GeocoderRateLimited' },
  },
  {
    service: 'geocodeearth',
    name: 'GeocodeEarth',
    adapter: 'pelias',
    reach: 'domain',
    keyArg: 'api_key',
    invalid: { error: 'GeocoderAuthenticationFailure' },
    noKey: { error: 'GeocoderAuthenticationFailure' },
    noCredit: { error: 'GeocoderInsufficientPrivileges' },
    used: { error: 'GeocoderRateLimited' },
  },
];

let env: ClientEnv;
jest.setTimeout(60_000);

beforeAll(async () => {
  env = await startClientEnv([...new Set(GEOPY_CLIENTS.map((c) => c.adapter))]);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

/** Runs one reverse geocode; `key` null sends none (keyed clients get an empty key: the only way to omit it). */
function reverse(
  c: GeopyClient,
  gw: Gateway,
  key: string | null,
  anonymous = false,
  geocode?: string,
): Promise<ScriptOutput> {
  const options: Record<string, unknown> = { scheme: 'http', user_agent: 'geogate-e2e', timeout: 10 };
  if (c.reach === 'domain') options['domain'] = new URL(env.url(gw, c.adapter, anonymous)).host;
  else options['proxies'] = { http: env.proxy(gw) };
  if (c.keyArg) options[c.keyArg] = key ?? '';
  const args = {
    service: c.service,
    options,
    lat: PARIS.lat,
    lon: PARIS.lon,
    ...(geocode ? { geocode } : {}),
  };
  return runScript(PYTHON, 'geopy_reverse.py', [JSON.stringify(args)]);
}

/** A successful reverse geocode of central Paris as geopy returns it. */
function expectParis(out: ScriptOutput): void {
  expect(out).toMatchObject({ ok: true, geopy: '2.3.0' });
  expect(String(out['address'])).toMatch(/Paris|France/);
  // The backend's nearest locality to the Eiffel Tower, within a few kilometres.
  expect(Math.abs(Number(out['lat']) - PARIS.lat)).toBeLessThan(0.1);
  expect(Math.abs(Number(out['lon']) - PARIS.lon)).toBeLessThan(0.1);
}

/** Asserts the geopy exception class of a refusal. */
function expectError(out: ScriptOutput, error: string): void {
  expect({ ok: out['ok'], error: out['error'] }).toEqual({ ok: false, error });
  expect(out['bases']).toContain('GeopyError');
}

describe.each(GEOPY_CLIENTS.map((c) => [`${c.service} → ${c.adapter}`, c] as const))('geopy %s', (_n, c) => {
  beforeEach(() => env.nextDay());

  it('success: reverse geocodes central Paris', async () => {
    expectParis(await reverse(c, 'B', c.keyArg ? await env.freshKey('B') : null, !c.keyArg));
  });

  it('invalid key', async () => {
    if (!expressible(c.invalid)) return expect(c.keyArg).toBeUndefined();
    expectError(await reverse(c, 'B', env.unknownKey), c.invalid.error);
  });

  it('no key', async () => {
    if (!expressible(c.noKey)) return;
    expectError(await reverse(c, 'B', null), c.noKey.error);
  });

  it('no credit (rule set A: the free request is used, no balance)', async () => {
    if (!expressible(c.noCredit)) return expect(c.keyArg).toBeUndefined();
    const key = await env.freshKey('A');
    expectParis(await reverse(c, 'A', key));
    expectError(await reverse(c, 'A', key), c.noCredit.error);
  });

  it('allowance used (rule set B: the free request is used)', async () => {
    if (!expressible(c.used)) return;
    const key = c.keyArg ? await env.freshKey('B') : null;
    expectParis(await reverse(c, 'B', key, !c.keyArg));
    expectError(await reverse(c, 'B', key, !c.keyArg), c.used.error);
  });
});

describe('photon and pelias hosts: forward search and refusals on the wire', () => {
  const client = (service: string) => GEOPY_CLIENTS.find((c) => c.service === service) as GeopyClient;
  beforeEach(() => env.nextDay());

  // Forward search is served since issue 11 (it was refused before): geopy's geocode() finds the place, and the
  // lookup is counted (the day's one free request is used, so the next lookup is refused).
  it.each([['photon'], ['pelias']])(
    '%s: geopy geocode("Berlin") finds Berlin, Germany, counted as one request',
    async (service) => {
      const c = client(service);
      const key = c.keyArg ? await env.freshKey('B') : null;
      const out = await reverse(c, 'B', key, !c.keyArg, 'Berlin');
      expect(out).toMatchObject({ ok: true, geopy: '2.3.0' });
      expect(String(out['address'])).toMatch(/Berlin/);
      expect(Math.abs(Number(out['lat']) - 52.52)).toBeLessThan(0.1);
      expect(Math.abs(Number(out['lon']) - 13.4)).toBeLessThan(0.1);
      if (expressible(c.used)) expectError(await reverse(c, 'B', key, !c.keyArg), c.used.error);
    },
  );

  it.each([
    ['photon', '/api?q=', { message: expect.stringMatching(/"q"/) as unknown }],
    ['pelias', '/v1/search?text=', { errors: [expect.stringMatching(/"text"/) as unknown] }],
  ])(
    "%s: a search without its text is refused in the provider's shape (400)",
    async (adapter, path, part) => {
      const res = await fetch(`${env.url('B', adapter, adapter === 'photon')}${path}`);
      expect(res.status).toBe(400);
      const b = (await res.json()) as Record<string, unknown>;
      expect(adapter === 'photon' ? b : b['geocoding']).toMatchObject(part);
    },
  );

  it('pelias follows geocode.earth: 401 without key, 403 over the plan (no credit), 429 with quota headers', async () => {
    const reverseUrl = (gw: Gateway, key?: string) =>
      `${env.url(gw, 'pelias')}/v1/reverse?point.lat=${PARIS.lat}&point.lon=${PARIS.lon}${key ? `&api_key=${key}` : ''}`;
    const noKey = await fetch(reverseUrl('B'));
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ geocoding: { errors: [expect.any(String)] }, features: [] });
    const a = await env.freshKey('A');
    expect((await fetch(reverseUrl('A', a))).status).toBe(200);
    expect((await fetch(reverseUrl('A', a))).status).toBe(403);
    const b = await env.freshKey('B');
    expect((await fetch(reverseUrl('B', b))).status).toBe(200);
    const limited = await fetch(reverseUrl('B', b));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-quota-reset')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit')).toMatch(/r=0/);
    const body = JSON.stringify(await limited.json());
    expect(body).toMatch(/allowance is used up/);
    expect(body).not.toContain(b);
  });
});

it('docs/adapters.md shows each geopy client with the outcomes asserted here', () => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'adapters.md'), 'utf8');
  for (const c of GEOPY_CLIENTS) {
    const row = doc.split('\n').find((l) => l.startsWith(`| geopy \`${c.name}\` | \`${c.adapter}\` |`));
    expect(row).toBeDefined();
    const cells = (row as string)
      .split('|')
      .map((x) => x.trim())
      .slice(3, 3 + CASES.length);
    expect(cells[0]).toMatch(/^✅/);
    [c.invalid, c.noKey, c.noCredit, c.used].forEach((e, i) => {
      const cell = cells[i + 1] as string;
      if (expressible(e)) expect(cell).toContain(`\`${e.error}\``);
      else expect(cell).toMatch(/^— /);
    });
  }
});
