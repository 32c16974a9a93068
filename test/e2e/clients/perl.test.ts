/**
 * Perl clients from Debian, unmodified, against the drop-in hosts (issue 16 item 6):
 * - Geo::Coder::OSM 0.03 (libgeo-coder-osm-perl) on the Nominatim host, given the host through its documented
 *   %SOURCES package variable; the key goes in the module's own extra-parameter hash. On a refusal the module
 *   returns nothing and keeps the HTTP::Response, whose status and Nominatim error body are asserted.
 * - Geo::Coder::Googlev3 0.17 (libgeo-coder-googlev3-perl): forward geocoding only and no base-URL option; reached
 *   through its own env_proxy (http_proxy) and the forward proxy of env.ts. Forward lookups are served since issue
 *   11: a lookup succeeds, and each refusal ends in the module's croak naming Google's status.
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
  /**
   * The module's croak names the body status it got. Since issue 11 the Google host serves forward lookups; the
   * module sends the location as `address=`, and a point written as the address is answered as Google does: the
   * place there.
   */
  const croak = (status: string): RegExp => new RegExp(`did not return OK status, but '${status}'`);
  const geocode = (
    gw: Gateway,
    key: string | null,
    location = `${PARIS.lat},${PARIS.lon}`,
  ): Promise<ScriptOutput> =>
    runScript(PERL, 'googlev3_geocode.pl', [location, ...(key === null ? [] : [key])], {
      http_proxy: env.proxy(gw),
    });
  const expectFrance = (out: ScriptOutput): void => {
    expect(out['ok']).toBe(1);
    const first = (out['results'] as { address_components: { short_name: string; types: string[] }[] }[])[0];
    const country = first?.address_components.find((c) => c.types.includes('country'));
    expect(country?.short_name).toBe('FR');
  };

  it('success: a point as the address is the place there (France)', async () => {
    expectFrance(await geocode('B', await env.freshKey('B')));
  });

  it('success: a place name is searched (Paris, France first)', async () => {
    const out = await geocode('B', await env.freshKey('B'), 'Paris');
    expectFrance(out);
    expect((out['results'] as { formatted_address: string }[])[0]?.formatted_address).toMatch(/^Paris, /);
  });

  it.each([
    ['invalid key', 'B', 'unknown', 'REQUEST_DENIED'],
    ['no key', 'B', 'none', 'REQUEST_DENIED'],
  ] as const)('%s (rule set %s, key %s): croaks %s', async (_c, gw, k, status) => {
    const out = await geocode(gw, k === 'unknown' ? env.unknownKey : null);
    expect(out['ok']).toBe(0);
    expect(String(out['croak'])).toMatch(croak(status));
  });

  it('no credit (rule set A): croaks OVER_DAILY_LIMIT after the free request', async () => {
    const key = await env.freshKey('A');
    expectFrance(await geocode('A', key));
    const out = await geocode('A', key);
    expect(out['ok']).toBe(0);
    expect(String(out['croak'])).toMatch(croak('OVER_DAILY_LIMIT'));
  });

  it('allowance used (rule set B): croaks OVER_QUERY_LIMIT after the free request', async () => {
    const key = await env.freshKey('B');
    expectFrance(await geocode('B', key));
    const out = await geocode('B', key);
    expect(out['ok']).toBe(0);
    expect(String(out['croak'])).toMatch(croak('OVER_QUERY_LIMIT'));
  });
});
