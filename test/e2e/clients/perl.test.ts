/**
 * Perl clients from Debian, unmodified, against the drop-in hosts (issue 16 item 6):
 * - Geo::Coder::OSM 0.03 (libgeo-coder-osm-perl) on the Nominatim host, given the host through its documented
 *   %SOURCES package variable; the key goes in the module's own extra-parameter hash. On a refusal the module
 *   returns nothing and keeps the HTTP::Response, whose status and Nominatim error body are asserted.
 * - Geo::Coder::Googlev3 0.17 (libgeo-coder-googlev3-perl): forward geocoding only and no base-URL option; reached
 *   through its own env_proxy (http_proxy) and the forward proxy of env.ts. Every case ends in the module's croak.
 */
import {
  PARIS,
  PERL,
  runScript,
  startClientEnv,
  type ClientEnv,
  type Gateway,
  type ScriptOutput,
} from './env';

let env: ClientEnv;
jest.setTimeout(60_000);

beforeAll(async () => {
  env = await startClientEnv(['nominatim', 'google']);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

beforeEach(() => env.nextDay());

describe('Geo::Coder::OSM → nominatim', () => {
  const reverse = (gw: Gateway, key: string | null, anonymous = false): Promise<ScriptOutput> =>
    runScript(PERL, 'osm_reverse.pl', [
      env.url(gw, 'nominatim', anonymous),
      String(PARIS.lat),
      String(PARIS.lon),
      ...(key === null ? [] : [key]),
    ]);
  const expectFrance = (out: ScriptOutput): void => {
    expect(out).toMatchObject({ ok: 1, address: { country: 'France', country_code: 'fr' } });
  };
  /** The module returned nothing; its HTTP::Response carries the Nominatim refusal. */
  const expectRefusal = (out: ScriptOutput, status: number, error: RegExp): void => {
    expect(out).toMatchObject({ ok: 0, status });
    expect((out['body'] as { error: string }).error).toMatch(error);
  };

  it('success (anonymous host, no key)', async () => {
    expectFrance(await reverse('B', null, true));
  });

  it('success with a key (keyed host)', async () => {
    expectFrance(await reverse('B', await env.freshKey('B')));
  });

  it('invalid key', async () => {
    expectRefusal(await reverse('B', env.unknownKey), 401, /not valid/);
  });

  it('no key', async () => {
    expectRefusal(await reverse('B', null), 401, /requires an API key/);
  });

  it('no credit (rule set A)', async () => {
    const key = await env.freshKey('A');
    expectFrance(await reverse('A', key));
    expectRefusal(await reverse('A', key), 402, /.+/);
  });

  it('allowance used (rule set B)', async () => {
    const key = await env.freshKey('B');
    expectFrance(await reverse('B', key));
    expectRefusal(await reverse('B', key), 429, /allowance/);
  });
});

describe('Geo::Coder::Googlev3 → google (forward-only client)', () => {
  /** The module's croak for every case: our Google host serves reverse (latlng) only and checks the request first. */
  const croak = /did not return OK status, but 'INVALID_REQUEST'/;
  const geocode = (gw: Gateway, key: string | null): Promise<ScriptOutput> =>
    runScript(PERL, 'googlev3_geocode.pl', [`${PARIS.lat},${PARIS.lon}`, ...(key === null ? [] : [key])], {
      http_proxy: env.proxy(gw),
    });

  it.each([
    ['success', 'B', 'fresh'],
    ['invalid key', 'B', 'unknown'],
    ['no key', 'B', 'none'],
    ['no credit', 'A', 'fresh'],
    ['allowance used', 'B', 'fresh'],
  ] as const)(
    '%s: reaches the host and croaks INVALID_REQUEST (address= is not served)',
    async (_c, gw, k) => {
      const key = k === 'fresh' ? await env.freshKey(gw) : k === 'unknown' ? env.unknownKey : null;
      const out = await geocode(gw, key);
      expect(out['ok']).toBe(0);
      expect(String(out['croak'])).toMatch(croak);
    },
  );
});
