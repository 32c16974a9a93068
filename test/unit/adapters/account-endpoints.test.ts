/** Issue 16 item 4, the adapters' part: which requests are account endpoints, and their provider shapes. */
import { ipinfo } from '../../../adapters/ipinfo';
import { locationiq } from '../../../adapters/locationiq';
import { nominatim } from '../../../adapters/nominatim';
import { opencage } from '../../../adapters/opencage';
import type { AccountView, Adapter } from '../../../adapters/types';
import { body, PARIS, req } from './fixtures';

const VIEW: AccountView = {
  rate: { limit: 100, remaining: 40, reset: 1795392000 },
  today: 60,
  month: 900,
  paid: 12,
};
const UNLIMITED: AccountView = { rate: null, today: 5, month: 50, paid: null };

function answer(a: Adapter<unknown>, path: string, query: string, view: AccountView | null) {
  const request = a.account?.parse(req(path, query));
  if (!request) throw new Error(`${path} is not an account endpoint of ${a.name}`);
  return a.account!.render(request.state, view);
}

describe('account endpoints', () => {
  it('LocationIQ /v1/balance: day left and bonus, JSON or XML; Unlimited has no day', () => {
    expect(body(answer(locationiq as Adapter<unknown>, '/v1/balance', 'key=K', VIEW))).toEqual({
      status: 'ok',
      balance: { day: 40, bonus: 12 },
    });
    expect(body(answer(locationiq as Adapter<unknown>, '/v1/balance/', 'key=K', UNLIMITED)).balance).toEqual({
      day: null,
      bonus: 0,
    });
    expect(answer(locationiq as Adapter<unknown>, '/v1/balance', 'key=K&format=xml', VIEW).body).toContain(
      '<balance><status>ok</status><day>40</day><bonus>12</bonus></balance>',
    );
    expect(locationiq.account?.parse(req('/v1/balance', 'key=K', {}, 'POST'))).toBeNull();
    expect(locationiq.account?.parse(req('/v1/reverse', 'key=K'))).toBeNull();
  });

  it('ipinfo /me: requests day, month, limit, remaining', () => {
    expect(body(answer(ipinfo as Adapter<unknown>, '/me', '', VIEW))).toEqual({
      requests: { day: 60, month: 900, limit: 100, remaining: 40 },
      features: {},
    });
    expect(body(answer(ipinfo as Adapter<unknown>, '/me', '', UNLIMITED)).requests).toMatchObject({
      limit: null,
    });
  });

  it('Nominatim /status needs no key and answers text or json', () => {
    expect(nominatim.account?.parse(req('/status'))?.needsKey).toBe(false);
    expect(answer(nominatim as Adapter<unknown>, '/status.php', '', null).body).toBe('OK');
    expect(body(answer(nominatim as Adapter<unknown>, '/status', 'format=json', null))).toMatchObject({
      status: 0,
      message: 'OK',
    });
    expect(answer(nominatim as Adapter<unknown>, '/status', 'format=xml', null).status).toBe(400);
    expect(nominatim.account?.parse(req('/reverse', 'lat=1&lon=2'))).toBeNull();
  });

  it("OpenCage withRate adds the rate member and the X-RateLimit headers, keeping the body's other members", () => {
    const plain = opencage.renderReverse({ annotations: true }, PARIS);
    const res = opencage.withRate!(plain, VIEW.rate!);
    expect(body(res)).toEqual({ rate: VIEW.rate, ...body(plain) });
    expect(res.headers).toMatchObject({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '40',
      'x-ratelimit-reset': '1795392000',
    });
  });
});
