/**
 * node-ipinfo 4.4.0, unmodified, against the ipinfo drop-in host (issue 5), pointed at it with the wrapper's 5th
 * constructor argument `baseUrl` (providers.md 2.5). node-ipinfo sends the token only as `Authorization: Bearer`,
 * caches per instance and never sends bogon IPs, so each lookup uses a fresh wrapper and public addresses.
 */
import { ApiLimitError, IPinfoLiteWrapper, IPinfoWrapper } from 'node-ipinfo';
import { outcome, settlesWithin, useDropIns, useFaultWatch } from '../harness';

useFaultWatch();

const env = useDropIns(['ipinfo']);

const standard = (key: string, ip: string) =>
  settlesWithin(
    new IPinfoWrapper(key, undefined, undefined, undefined, env.url('ipinfo')).lookupIp(ip),
    'node-ipinfo',
  );
const lite = (key: string, ip: string) =>
  settlesWithin(
    new IPinfoLiteWrapper(key, undefined, undefined, undefined, `${env.url('ipinfo')}/lite`).lookupIp(ip),
    'node-ipinfo lite',
  );

describe('node-ipinfo against the ipinfo drop-in host', () => {
  it('looks up 8.8.8.8 as US (standard API)', async () => {
    const info = (await standard(await env.freshKey(), '8.8.8.8')) as unknown as Record<string, unknown>;
    expect(info['ip']).toBe('8.8.8.8');
    expect(info['countryCode']).toBe('US');
    expect(info['country']).toBe('United States');
  });

  it('looks up 8.8.8.8 as US (Lite API)', async () => {
    const info = (await lite(await env.freshKey(), '8.8.8.8')) as unknown as Record<string, unknown>;
    expect(info['countryCode']).toBe('US');
    expect(info['continent']).toBe('North America');
  });

  it('looks up the caller with /lite/me (the gateway fills in the loopback test client, a bogon without a country)', async () => {
    const wrapper = new IPinfoLiteWrapper(
      await env.freshKey(),
      undefined,
      undefined,
      undefined,
      `${env.url('ipinfo')}/lite`,
    );
    const info = (await settlesWithin(wrapper.lookupIp(), 'node-ipinfo lite me')) as unknown as Record<
      string,
      unknown
    >;
    expect(info['ip']).toBe('127.0.0.1');
    expect(info['countryCode']).toBeUndefined();
  });

  it('rejects an unknown token with the client own error (403)', async () => {
    const result = await outcome(standard(env.unknownKey, '8.8.4.4'));
    expect(result.ok).toBe(false);
    const err = (result as { error: Error }).error;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ApiLimitError);
    expect(err.message).toMatch(/ 403 /);
  });

  it('rejects an exhausted allowance with the client ApiLimitError (429)', async () => {
    const key = await env.freshKey();
    await standard(key, '8.8.8.8');
    const result = await outcome(standard(key, '1.1.1.1'));
    expect(result.ok).toBe(false);
    expect((result as { error: Error }).error).toBeInstanceOf(ApiLimitError);
  });
});
