/**
 * Cross-adapter checks over the whole registry: every adapter renders every gateway code (D24), drop-in adapters
 * export a complete error table, and credentials never appear in anything an adapter renders.
 */
import { ADAPTERS } from '../../../adapters';
import type { Adapter, AdapterRequest } from '../../../adapters/types';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { GOOGLE_DNS, PARIS, req, SECRET } from './fixtures';

/** One valid request per adapter, carrying SECRET in every credential parameter the adapter declares. */
function sample(name: string, adapter: Adapter<unknown>): AdapterRequest {
  const creds = adapter.credentialParams.map((p) => `${p}=${SECRET}`).join('&');
  const q = (query: string) => [query, creds].filter(Boolean).join('&');
  const samples: Record<string, [string, string]> = {
    native: ['/v1/reverse', q('lat=48.8584&lon=2.2945')],
    google: ['/maps/api/geocode/json', q('latlng=48.8584,2.2945')],
    nominatim: ['/reverse', q('lat=48.8584&lon=2.2945&format=xml')],
    mapbox: ['/geocoding/v5/mapbox.places/2.2945,48.8584.json', q('')],
    here: ['/v1/revgeocode', q('at=48.8584,2.2945')],
    locationiq: ['/v1/reverse', q('lat=48.8584&lon=2.2945')],
    opencage: ['/geocode/v1/json', q('q=48.8584,2.2945')],
    geoapify: ['/v1/geocode/reverse', q('lat=48.8584&lon=2.2945')],
    geocodio: ['/v1.7/reverse', q('q=48.8584,2.2945')],
    positionstack: ['/v1/reverse', q('query=48.8584,2.2945')],
    tomtom: ['/search/2/reverseGeocode/48.8584,2.2945.json', q('')],
    bing: ['/REST/v1/Locations/48.8584,2.2945', q('')],
    ipinfo: ['/8.8.8.8/json', q('')],
    ipstack: ['/8.8.8.8', q('')],
    photon: ['/reverse', q('lat=48.8584&lon=2.2945')],
    pelias: ['/v1/reverse', q('point.lat=48.8584&point.lon=2.2945')],
  };
  const s = samples[name];
  if (!s) throw new Error(`no sample request for adapter ${name}: add one here`);
  return req(s[0], s[1], { authorization: `Bearer ${SECRET}` });
}

const entries = Object.entries(ADAPTERS) as [string, Adapter<unknown>][];
const dropIns = entries.filter(([name]) => name !== 'native');

describe('adapter registry', () => {
  it.each(entries.map(([name, a]) => [name, a]))('%s is registered under its own name', (name, adapter) => {
    expect((adapter as Adapter<unknown>).name).toBe(name);
  });

  it('holds the thirteen drop-in providers of issue 5 and Photon and Pelias (issue 16)', () => {
    expect(dropIns.map(([n]) => n).sort()).toEqual([
      'bing',
      'geoapify',
      'geocodio',
      'google',
      'here',
      'ipinfo',
      'ipstack',
      'locationiq',
      'mapbox',
      'nominatim',
      'opencage',
      'pelias',
      'photon',
      'positionstack',
      'tomtom',
    ]);
  });

  it.each(dropIns.map(([name]) => [name]))(
    '%s exports a D24 table with a row for every gateway code',
    (name) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(`../../../adapters/${name}`) as Record<string, unknown>;
      const tables = Object.entries(mod).filter(([k]) => k.endsWith('_ERRORS'));
      expect(tables).toHaveLength(1);
      expect(Object.keys(tables[0]![1] as object).sort()).toEqual([...ALL_GATEWAY_CODES].sort());
    },
  );

  it.each(entries.map(([name, a]) => [name, a]))(
    '%s renders every gateway code with a status and a body',
    (name, adapter) => {
      const a = adapter as Adapter<unknown>;
      const parsed = a.parse(sample(name, a));
      if (parsed === null || !parsed.ok) throw new Error(`sample request for ${name} did not parse`);
      for (const state of [null, parsed.request.state]) {
        for (const code of ALL_GATEWAY_CODES) {
          const res = a.renderError(state, code, 'detail', {});
          expect(Number.isInteger(res.status) && res.status >= 200 && res.status <= 599).toBe(true);
          expect(res.body.length).toBeGreaterThan(0);
          expect(res.headers['content-type']).toBeDefined();
        }
      }
    },
  );

  it.each(entries.map(([name, a]) => [name, a]))(
    '%s never renders a credential it was sent',
    (name, adapter) => {
      const a = adapter as Adapter<unknown>;
      const request = sample(name, a);
      const found = a.providerCredentials(request);
      if (name !== 'native') expect(found.some((c) => c.value === SECRET)).toBe(true);
      const parsed = a.parse(request);
      if (parsed === null || !parsed.ok) throw new Error(`sample request for ${name} did not parse`);
      const { call, state } = parsed.request;
      const outputs = [
        call.kind === 'reverse' ? a.renderReverse(state, PARIS) : a.renderIp(state, GOOGLE_DNS),
      ];
      for (const code of ALL_GATEWAY_CODES)
        outputs.push(a.renderError(state, code, 'detail', { parameter: 'lat' }));
      for (const out of outputs) {
        expect(out.body).not.toContain(SECRET);
        expect(JSON.stringify(out.headers)).not.toContain(SECRET);
      }
      expect(JSON.stringify(call)).not.toContain(SECRET);
    },
  );
});
