/**
 * @googlemaps/google-maps-services-js 3.4.2, unmodified, against the google drop-in host (issue 5), pointed at it with
 * the per-request `url` option (providers.md 2.2). Google errors travel as HTTP 200 + `status`; the client maps
 * REQUEST_DENIED to 403 and OVER_QUERY_LIMIT to 429 itself and rejects with an AxiosError (it retries 429 once).
 */
import { Client, type ReverseGeocodeResponse } from '@googlemaps/google-maps-services-js';
import { outcome, PARIS, settlesWithin, useDropIns, useFaultWatch } from '../harness';

useFaultWatch();
const client = new Client({});

const env = useDropIns(['google']);

function reverse(key: string): Promise<ReverseGeocodeResponse> {
  const url = `${env.url('google')}/maps/api/geocode/json`;
  return settlesWithin(
    client.reverseGeocode({ params: { latlng: [PARIS.lat, PARIS.lon], key }, url }),
    'google client',
  );
}

interface AxiosLike {
  isAxiosError?: boolean;
  response?: { status: number; data: { status: string; error_message: string } };
}

describe('@googlemaps/google-maps-services-js against the google drop-in host', () => {
  it('reverse-geocodes central Paris to FR and a Paris locality', async () => {
    const res = await reverse(await env.freshKey());
    expect(res.status).toBe(200);
    expect(res.data.status).toBe('OK');
    const result = res.data.results[0];
    const country = result?.address_components.find((c) => (c.types as string[]).includes('country'));
    const locality = result?.address_components.find((c) => (c.types as string[]).includes('locality'));
    expect(country?.short_name).toBe('FR');
    expect(locality?.long_name).toMatch(/Paris/);
    expect(result?.geometry.location.lat).toBeCloseTo(PARIS.lat, 0);
  });

  it('rejects an unknown key with the client own error: 403 REQUEST_DENIED', async () => {
    const result = await outcome(reverse(env.unknownKey));
    expect(result.ok).toBe(false);
    const err = (result as { error: AxiosLike }).error;
    expect(err.isAxiosError).toBe(true);
    expect(err.response?.status).toBe(403);
    expect(err.response?.data.status).toBe('REQUEST_DENIED');
    expect(err.response?.data.error_message).not.toContain(env.unknownKey);
  });

  it('rejects an exhausted allowance with the client own error: 429 OVER_QUERY_LIMIT (after its one retry)', async () => {
    const key = await env.freshKey();
    expect((await reverse(key)).data.status).toBe('OK');
    const result = await outcome(reverse(key));
    expect(result.ok).toBe(false);
    const err = (result as { error: AxiosLike }).error;
    expect(err.response?.status).toBe(429);
    expect(err.response?.data.status).toBe('OVER_QUERY_LIMIT');
  });

  it('rejects a key restricted to other addresses (D29) with the client own error: 403 REQUEST_DENIED, not counted', async () => {
    const account = await env.harness.account();
    const { key, record } = await env.harness.key(account.id);
    await env.harness.store.setKeyRestrictions(record.id, { referrers: [], cidrs: ['203.0.113.0/24'] });
    const result = await outcome(reverse(key));
    expect(result.ok).toBe(false);
    const err = (result as { error: AxiosLike }).error;
    expect(err.response?.status).toBe(403);
    expect(err.response?.data.status).toBe('REQUEST_DENIED');
    expect(err.response?.data.error_message).toBe(
      'This IP, site or mobile application is not authorized to use this API key.',
    );
    // Lifted: the key's one free request of the day is still there (the refusal counted nothing).
    await env.harness.store.setKeyRestrictions(record.id, null);
    expect((await reverse(key)).data.status).toBe('OK');
  });
});
