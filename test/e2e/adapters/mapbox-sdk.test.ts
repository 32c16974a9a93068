/**
 * @mapbox/mapbox-sdk 0.16.2, unmodified, against the mapbox drop-in host (issue 5), pointed at it with the client's
 * `origin` option (providers.md 2.3), geocoding v5 and v6. The SDK only sends Mapbox-shaped tokens, so the geogate key
 * travels as the token's third part (`pk.<payload>.<key>`, unwrapped by the adapter).
 */
import { outcome, PARIS, settlesWithin, useDropIns, useFaultWatch } from '../harness';

interface MapiResponse {
  statusCode: number;
  body: {
    features: {
      id?: string;
      text?: string;
      context?: { id: string; text: string; short_code?: string }[];
      properties: Record<string, unknown> & {
        context?: Record<string, { name: string; country_code?: string }>;
      };
    }[];
  };
}
interface MapiError {
  type: string;
  statusCode: number;
  message: string;
}
interface Sendable {
  send(): Promise<MapiResponse>;
}
// The SDK ships no types; it is used exactly as its README shows.
/* eslint-disable @typescript-eslint/no-require-imports */
const mbxClient = require('@mapbox/mapbox-sdk') as (o: { accessToken: string; origin: string }) => unknown;
const mbxGeocoding = require('@mapbox/mapbox-sdk/services/geocoding') as (c: unknown) => {
  reverseGeocode(o: { query: [number, number]; limit?: number }): Sendable;
};
const mbxGeocodingV6 = require('@mapbox/mapbox-sdk/services/geocoding-v6') as (c: unknown) => {
  reverseGeocode(o: { longitude: number; latitude: number }): Sendable;
};
/* eslint-enable @typescript-eslint/no-require-imports */

useFaultWatch();

const env = useDropIns(['mapbox']);

/** A Mapbox-shaped token carrying a geogate key: payload {"u":"geogate"}. */
const token = (key: string) => `pk.eyJ1IjoiZ2VvZ2F0ZSJ9.${key}`;

function v5(key: string): Promise<MapiResponse> {
  const client = mbxClient({ accessToken: token(key), origin: env.url('mapbox') });
  return settlesWithin(
    mbxGeocoding(client)
      .reverseGeocode({ query: [PARIS.lon, PARIS.lat], limit: 1 })
      .send(),
    'mapbox v5',
  );
}

function v6(key: string): Promise<MapiResponse> {
  const client = mbxClient({ accessToken: token(key), origin: env.url('mapbox') });
  return settlesWithin(
    mbxGeocodingV6(client).reverseGeocode({ longitude: PARIS.lon, latitude: PARIS.lat }).send(),
    'mapbox v6',
  );
}

describe('@mapbox/mapbox-sdk against the mapbox drop-in host', () => {
  it('v5 reverse-geocodes central Paris to a Paris place in country fr', async () => {
    const res = await v5(await env.freshKey());
    expect(res.statusCode).toBe(200);
    const f = res.body.features[0];
    expect(f?.text).toMatch(/Paris/);
    expect(f?.context?.find((c) => c.id.startsWith('country.'))?.short_code).toBe('fr');
  });

  it('v6 reverse-geocodes central Paris to a Paris place in country FR', async () => {
    const res = await v6(await env.freshKey());
    expect(res.statusCode).toBe(200);
    const p = res.body.features[0]?.properties;
    expect(p?.['feature_type']).toBe('place');
    expect(p?.context?.['place']?.name).toMatch(/Paris/);
    expect(p?.context?.['country']?.country_code).toBe('FR');
  });

  it.each([
    ['v5', v5],
    ['v6', v6],
  ])('%s rejects an unknown key with a MapiError 401', async (_v, send) => {
    const result = await outcome(send(env.unknownKey));
    expect(result.ok).toBe(false);
    const err = (result as { error: MapiError }).error;
    expect(err.type).toBe('HttpError');
    expect(err.statusCode).toBe(401);
    expect(err.message.length).toBeGreaterThan(0);
  });

  it('rejects an exhausted allowance with a MapiError 429', async () => {
    const key = await env.freshKey();
    expect((await v5(key)).statusCode).toBe(200);
    const result = await outcome(v6(key));
    expect(result.ok).toBe(false);
    const err = (result as { error: MapiError }).error;
    expect([err.type, err.statusCode]).toEqual(['HttpError', 429]);
  });
});
