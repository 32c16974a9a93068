/**
 * Key restrictions (issue 15 item 4, D29) through a running gateway on every host: a restricted key used from a
 * disallowed page or address is refused 403 key_restricted on the main host and as each provider's nearest error on
 * each drop-in host; the backend is never asked and nothing is counted or recorded (D10). An allowed page is served.
 */
import { ADAPTERS } from '../../../adapters';
import type { RequestForm } from '../../../adapters/common/parse';
import { publicMessage } from '../../../adapters/common/texts';
import type { Adapter } from '../../../adapters/types';
import { call } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

const DROP_INS = Object.keys(ADAPTERS).filter((n) => n !== 'native');
const ALLOWED = 'https://app.example.com';
const DISALLOWED = 'https://evil.example.net';
const WEB_PAGE = 'This API key is not allowed from the web page the request came from.';

function firstForm(name: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(`../../../adapters/${name}`) as Record<string, unknown>;
  const forms = Object.entries(mod).find(([k]) => k.endsWith('_FORMS'))?.[1] as readonly RequestForm[];
  const withKey = forms.find((f) => /[?&][a-zA-Z_]+=K(&|$)/.test(f.example));
  if (!withKey) throw new Error(`${name}: no form with the key in the query`);
  return withKey.example;
}

/** The answer the adapter renders for key_restricted on this request, as the pipeline renders every refusal. */
function expected(name: string, example: string, detail: string, requestId: string) {
  const a = ADAPTERS[name] as Adapter<unknown>;
  const q = example.indexOf('?');
  const parsed = a.parse({
    method: 'GET',
    path: decodeURIComponent(example.slice(0, q)),
    query: example.slice(q + 1),
    headers: {},
  });
  const state = parsed === null ? null : parsed.ok ? parsed.request.state : (parsed.state ?? null);
  return a.renderError(state, 'key_restricted', publicMessage(a.clientTexts, 'key_restricted', detail), {
    requestId,
  });
}

/** Each drop-in host's status for key_restricted (the provider's nearest error; Google and ipstack answer 200). */
const STATUS: Record<string, number> = {
  bing: 403,
  geoapify: 403,
  geocodio: 403,
  google: 200,
  here: 403,
  ipinfo: 403,
  ipstack: 200,
  locationiq: 403,
  mapbox: 403,
  nominatim: 403,
  opencage: 403,
  pelias: 403,
  photon: 403,
  positionstack: 403,
  tomtom: 403,
};

describe.each(['A', 'B'] as const)('rule set %s', (policy) => {
  let g: Injected;
  let key: string;
  let keyId: string;
  let accountId: string;
  let day: string;
  beforeAll(async () => {
    g = await startInjected(policy, {
      trustProxy: ['127.0.0.1/32'],
      hosts: [
        { name: 'localhost', adapter: 'native' },
        ...DROP_INS.map((n) => ({ name: `${n}.localhost`, adapter: n })),
      ],
    });
    const acc = await g.account(100);
    accountId = acc.id;
    ({ key, id: keyId } = await g.key(acc.id));
    await g.store.setKeyRestrictions(keyId, { referrers: ['https://*.example.com'], cidrs: [] });
    day = new Date(g.clock.now()).toISOString().slice(0, 10);
  });
  afterAll(() => g.close());

  const usage = () => g.store.usage([`key:${keyId}`, `account:${accountId}`], day, day);
  const onHost = (name: string, origin: string) =>
    call(g.mainUrl, firstForm(name).replace(/=K(&|$)/, `=${key}$1`), {
      headers: { host: `${name}.localhost`, origin },
    });

  test('main host: 403 key_restricted problem+json, backend not asked, nothing counted', async () => {
    const calls = g.calls.length;
    const before = await usage();
    const r = await call(g.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945', {
      headers: { 'x-api-key': key, origin: DISALLOWED },
    });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 'key_restricted', status: 403 });
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.text).not.toContain(key);
    expect(g.calls.length).toBe(calls);
    expect(await usage()).toEqual(before);
    const ok = await call(g.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945', {
      headers: { 'x-api-key': key, origin: ALLOWED },
    });
    expect(ok.status).toBe(200);
    expect(g.calls.length).toBe(calls + 1);
  });

  test.each(DROP_INS)(
    '%s: the provider’s nearest error, backend not asked, nothing counted',
    async (name) => {
      const calls = g.calls.length;
      const before = await usage();
      const r = await onHost(name, DISALLOWED);
      const want = expected(name, firstForm(name), WEB_PAGE, String(r.headers['x-request-id']));
      expect(r.status).toBe(STATUS[name]);
      expect(r.status).toBe(want.status);
      expect(r.text).toBe(want.body);
      if (name === 'google') expect(r.json).toMatchObject({ status: 'REQUEST_DENIED' });
      expect(r.text).not.toContain(key);
      expect(g.calls.length).toBe(calls);
      expect(await usage()).toEqual(before);
      // The same key from an allowed page reaches the backend.
      const ok = await onHost(name, ALLOWED);
      expect(r.status === ok.status && r.text === ok.text).toBe(false);
      expect(g.calls.length).toBe(calls + 1);
    },
  );

  test('the address rule: a client outside the CIDRs is refused, inside is served; takes effect at once', async () => {
    const acc = await g.account(100);
    const k = await g.key(acc.id);
    const from = (ip: string) =>
      call(g.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945', {
        headers: { 'x-api-key': k.key, 'x-forwarded-for': ip },
      });
    expect((await from('198.51.100.9')).status).toBe(200); // cached identity, unrestricted
    await g.store.setKeyRestrictions(k.id, { referrers: [], cidrs: ['203.0.113.0/24'] });
    const refused = await from('198.51.100.9');
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'key_restricted' });
    expect((await from('203.0.113.200')).status).toBe(200);
    await g.store.setKeyRestrictions(k.id, null);
    expect((await from('198.51.100.9')).status).toBe(200);
  });
});
