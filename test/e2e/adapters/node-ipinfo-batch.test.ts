/**
 * node-ipinfo 4.4.0's `getBatch`, unmodified, against the ipinfo drop-in host and the real backend (issue 16 item 1):
 * `POST /batch` answers an object keyed by path, each distinct path is one request of the allowance, and a batch the
 * allowance cannot serve in full is refused (the client's ApiLimitError) without using any of it.
 */
import { ApiLimitError, IPinfoWrapper } from 'node-ipinfo';
import { outcome, settlesWithin, useDropIns, useFaultWatch } from '../harness';

useFaultWatch();

// Three free requests a day per key, no credit.
const env = useDropIns(['ipinfo'], { freePerDay: 3 });

/** A fresh wrapper each time: node-ipinfo caches answers per instance. */
const batch = (key: string, paths: string[]) =>
  settlesWithin(
    new IPinfoWrapper(key, undefined, undefined, undefined, env.url('ipinfo')).getBatch(paths),
    'node-ipinfo getBatch',
  );
const single = (key: string, ip: string) =>
  outcome(
    settlesWithin(
      new IPinfoWrapper(key, undefined, undefined, undefined, env.url('ipinfo')).lookupIp(ip),
      'node-ipinfo lookupIp',
    ),
  );

describe('node-ipinfo getBatch against the ipinfo drop-in host', () => {
  it('answers each path; two paths use two of the three free requests', async () => {
    const key = await env.freshKey();
    const result = (await batch(key, ['8.8.8.8/json', '8.8.8.8/country'])) as Record<string, unknown>;
    expect(result['8.8.8.8/json']).toMatchObject({
      ip: '8.8.8.8',
      countryCode: 'US',
      country: 'United States',
    });
    expect(result['8.8.8.8/country']).toBe('US');
    // One free request is left: exactly one more lookup is served.
    expect((await single(key, '1.1.1.1')).ok).toBe(true);
    const over = await single(key, '8.8.4.4');
    expect((over as { error: Error }).error).toBeInstanceOf(ApiLimitError);
  });

  it('a batch larger than what is left is refused (ApiLimitError) and uses nothing', async () => {
    const key = await env.freshKey();
    const refused = await outcome(
      batch(key, ['8.8.8.8/json', '1.1.1.1/json', '8.8.4.4/json', '9.9.9.9/json']),
    );
    expect(refused.ok).toBe(false);
    expect((refused as { error: Error }).error).toBeInstanceOf(ApiLimitError);
    // All three free requests are still there.
    const result = (await batch(key, ['8.8.8.8/json', '1.1.1.1/json', '8.8.4.4/json'])) as Record<
      string,
      unknown
    >;
    expect(Object.keys(result).sort()).toEqual(['1.1.1.1/json', '8.8.4.4/json', '8.8.8.8/json']);
    expect(result['8.8.4.4/json']).toMatchObject({ ip: '8.8.4.4', countryCode: 'US' });
  });

  it('an unknown token is refused with the client own error (403)', async () => {
    const refused = await outcome(batch(env.unknownKey, ['8.8.8.8/json']));
    expect(refused.ok).toBe(false);
    const err = (refused as { error: Error }).error;
    expect(err).not.toBeInstanceOf(ApiLimitError);
    expect(err.message).toMatch(/ 403 /);
  });
});
