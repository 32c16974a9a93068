/**
 * Issue 5, item 4: requests on drop-in hosts count against the same allowance and the same IP slots as the main host.
 * Rule set B, a free allowance of 3 per account per day, X-Forwarded-For trusted from loopback (D3) to play several
 * client addresses. Each refusal is rendered in the shape of the host it arrived on (D24).
 */
import { call, useDropIns } from '../harness';

const env = useDropIns(['google', 'ipinfo'], { freePerDay: 3, trustProxy: ['127.0.0.1/32'] });

const main = (key: string, from = '198.51.100.10') =>
  call(env.harness.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945', {
    headers: { 'x-api-key': key, 'x-forwarded-for': from },
  });
const google = (key: string, from = '198.51.100.10') =>
  call(env.url('google'), `/maps/api/geocode/json?latlng=48.8584,2.2945&key=${key}`, {
    headers: { 'x-forwarded-for': from },
  });
const ipinfo = (key: string, from = '198.51.100.10') =>
  call(env.url('ipinfo'), '/8.8.8.8/json', {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': from },
  });

describe('drop-in hosts share the allowance and the IP slots of the main host', () => {
  it('counts main, google and ipinfo requests against one daily allowance, then refuses on every host', async () => {
    const key = await env.freshKey();
    const answers = [await main(key), await google(key), await ipinfo(key)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[1]?.json.status).toBe('OK');
    expect(answers.map((a) => a.headers['x-quota-used'])).toEqual(['1', '2', '3']);

    const main4 = await main(key);
    expect(main4.status).toBe(429);
    expect(main4.json.code).toBe('quota_exceeded');
    const google4 = await google(key);
    expect([google4.status, google4.json.status]).toEqual([200, 'OVER_QUERY_LIMIT']);
    const ipinfo4 = await ipinfo(key);
    expect([ipinfo4.status, ipinfo4.json.error.title]).toEqual([429, 'Rate limit exceeded']);
  });

  it('takes IP slots across hosts: a third address on a drop-in host is refused in its shape (key_ip_limit)', async () => {
    const key = await env.freshKey();
    expect((await main(key, '198.51.100.1')).status).toBe(200);
    expect((await google(key, '198.51.100.2')).json.status).toBe('OK');
    const third = await ipinfo(key, '198.51.100.3');
    expect(third.status).toBe(403);
    expect(third.json).toMatchObject({ status: 403, error: { title: 'Forbidden' } });
    const thirdGoogle = await google(key, '198.51.100.3');
    expect([thirdGoogle.status, thirdGoogle.json.status]).toEqual([200, 'REQUEST_DENIED']);
    // The refusals changed nothing (D10): the first address still holds its slot and the allowance has one left.
    const again = await ipinfo(key, '198.51.100.1');
    expect(again.status).toBe(200);
    expect(again.headers['x-quota-used']).toBe('3');
  });
});
