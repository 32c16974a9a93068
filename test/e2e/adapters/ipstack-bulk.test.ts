/**
 * ipstack bulk lookups (`GET /{ip1},{ip2}?access_key=`) through the real gateway, forwarder and backend (issue 16
 * item 1): one answer per address in order, each address one request of the allowance, and a call the allowance cannot
 * serve in full refused without using any of it.
 */
import { call, useDropIns, useFaultWatch } from '../harness';

useFaultWatch();

// Three free requests a day per key, no credit.
const env = useDropIns(['ipstack'], { freePerDay: 3 });

const lookup = (key: string, ips: string) => call(env.url('ipstack'), `/${ips}?access_key=${key}`);

describe('ipstack bulk lookups against the ipstack drop-in host', () => {
  it('answers each address in order and uses one request per address', async () => {
    const key = await env.freshKey();
    const r = await lookup(key, '8.8.8.8,1.1.1.1');
    expect(r.status).toBe(200);
    const items = r.json as { ip: string; country_code: string | null }[];
    expect(items.map((i) => i.ip)).toEqual(['8.8.8.8', '1.1.1.1']);
    expect(items[0]?.country_code).toBe('US');
    // One free request is left: a 2-address call is refused, a single lookup served, then nothing more.
    expect((await lookup(key, '8.8.4.4,9.9.9.9')).json).toMatchObject({
      success: false,
      error: { code: 104 },
    });
    expect((await lookup(key, '8.8.4.4')).json).toMatchObject({ ip: '8.8.4.4' });
    expect((await lookup(key, '9.9.9.9')).json).toMatchObject({ success: false, error: { code: 104 } });
  });

  it('a refused call uses nothing: the full allowance is still there after it', async () => {
    const key = await env.freshKey();
    expect((await lookup(key, '8.8.8.8,1.1.1.1,8.8.4.4,9.9.9.9')).json).toMatchObject({ success: false });
    const ok = await lookup(key, '8.8.8.8%2C1.1.1.1%2C8.8.4.4');
    expect((ok.json as unknown[]).length).toBe(3);
  });
});
