/**
 * Issue 16 item 1, bulk forms: ipstack `GET /{ip1},{ip2}` and ipinfo `POST /batch` parse into one lookup per address
 * (per distinct path for ipinfo), refuse what the provider refuses (limits, bad addresses) before anything is counted,
 * and render the N answers in the provider's bulk shape.
 */
import { IPINFO_BATCH_MAX, IPINFO_BULK_CALLS, ipinfo } from '../../../adapters/ipinfo';
import { IPSTACK_BULK_CALLS, IPSTACK_BULK_MAX, ipstack } from '../../../adapters/ipstack';
import type { Adapter, BulkEndpoints, BulkParse, BulkRequest } from '../../../adapters/types';
import { body, GOOGLE_DNS, req } from './fixtures';

function bulkOf(a: Adapter<unknown>): BulkEndpoints<unknown> {
  if (!a.bulk) throw new Error(`${a.name} has no bulk form`);
  return a.bulk;
}

/** The request as the pipeline builds it: `path[?query][ body]`, a body making it a POST. */
function received(example: string): { r: ReturnType<typeof req>; body: Buffer } {
  const space = example.indexOf(' ');
  const target = space < 0 ? example : example.slice(0, space);
  const text = space < 0 ? '' : example.slice(space + 1);
  const q = target.indexOf('?');
  const path = decodeURIComponent(q < 0 ? target : target.slice(0, q));
  const r = req(path, q < 0 ? '' : target.slice(q + 1), {}, space < 0 ? 'GET' : 'POST');
  return { r, body: Buffer.from(text) };
}

function bulkParsed(result: BulkParse<unknown>): BulkRequest {
  if (result === null || !result.ok || !('bulk' in result))
    throw new Error(`expected a bulk call, got ${JSON.stringify(result)}`);
  return result.bulk;
}

function bulkRefused(result: BulkParse<unknown>): { code: string; parameter: string | undefined } {
  if (result === null || result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return { code: result.code, parameter: result.facts?.parameter };
}

const parse = (a: Adapter<unknown>, example: string): BulkParse<unknown> => {
  const { r, body: b } = received(example);
  const bulk = bulkOf(a);
  if (!bulk.matches(r)) throw new Error(`${example} is not matched as a bulk call`);
  return bulk.parse(r, b);
};

const cases = [
  ...IPSTACK_BULK_CALLS.map((f) => [ipstack, f.example] as const),
  ...IPINFO_BULK_CALLS.map((f) => [ipinfo, f.example] as const),
];

describe('bulk forms (issue 16 item 1)', () => {
  it.each(cases)('%# %s parses into one ipv4 lookup per address', (a, example) => {
    const bulk = bulkParsed(parse(a as Adapter<unknown>, example));
    expect(bulk.items.map((i) => i.call)).toEqual([
      { kind: 'ipv4', ip: '8.8.8.8' },
      { kind: 'ipv4', ip: '1.1.1.1' },
    ]);
  });

  it('single requests are not bulk calls', () => {
    expect(bulkOf(ipstack as Adapter<unknown>).matches(req('/8.8.8.8'))).toBe(false);
    expect(bulkOf(ipstack as Adapter<unknown>).matches(req('/check'))).toBe(false);
    expect(bulkOf(ipinfo as Adapter<unknown>).matches(req('/8.8.8.8/json'))).toBe(false);
  });

  it('ipinfo: a path given twice is one lookup, keyed as sent', () => {
    const bulk = bulkParsed(parse(ipinfo as Adapter<unknown>, '/batch ["8.8.8.8","8.8.8.8","8.8.8.8/city"]'));
    expect(bulk.items.map((i) => i.key)).toEqual(['8.8.8.8', '8.8.8.8/city']);
  });

  it.each([
    [
      ipstack,
      `/${Array(IPSTACK_BULK_MAX + 1)
        .fill('8.8.8.8')
        .join(',')}`,
      'invalid_parameter',
      'ip',
    ],
    [ipstack, '/8.8.8.8,not-an-ip', 'invalid_parameter', 'ip'],
    [ipstack, '/8.8.8.8,2001:db8::1', 'ipv4_required', 'ip'],
    [ipstack, '/8.8.8.8,1.1.1.1?output=xml', 'invalid_parameter', 'output'],
    [ipinfo, '/batch {"a":1}', 'invalid_parameter', 'body'],
    [ipinfo, '/batch []', 'invalid_parameter', 'body'],
    [ipinfo, '/batch not json', 'invalid_parameter', 'body'],
    [ipinfo, '/batch ["8.8.8.8", 3]', 'invalid_parameter', 'body'],
    [ipinfo, '/batch ["me"]', 'invalid_parameter', 'body'],
    [ipinfo, '/batch ["json"]', 'invalid_parameter', 'body'],
    [ipinfo, '/batch ["8.8.8.8/nonsense/x"]', 'invalid_parameter', 'body'],
    [
      ipinfo,
      `/batch ${JSON.stringify(Array.from({ length: IPINFO_BATCH_MAX + 1 }, (_, i) => `10.0.${i >> 8}.${i & 255}`))}`,
      'invalid_parameter',
      'body',
    ],
  ])('%# refuses %s before counting', (a, example, code, parameter) => {
    expect(bulkRefused(parse(a as Adapter<unknown>, example))).toEqual({ code, parameter });
  });

  it('ipinfo /batch by GET is 405', () => {
    const r = bulkOf(ipinfo as Adapter<unknown>).parse(req('/batch'), Buffer.alloc(0));
    expect(bulkRefused(r).code).toBe('method_not_allowed');
  });

  it('ipstack renders an array of the single answers, errors in their envelope', () => {
    const ok = ipstack.renderIp({}, GOOGLE_DNS);
    const err = ipstack.renderError({}, 'backend_unavailable', '', {});
    const out = bulkOf(ipstack as Adapter<unknown>).render({}, [
      { key: '8.8.8.8', answer: ok },
      { key: '1.1.1.1', answer: err },
    ]);
    expect(out.status).toBe(200);
    const json = body(out);
    expect(json).toEqual([JSON.parse(ok.body), JSON.parse(err.body)]);
    expect(json[0]).toMatchObject({ ip: '8.8.8.8', country_code: 'US' });
    expect(json[1]).toMatchObject({ success: false, error: { code: 502 } });
  });

  it('ipinfo renders an object keyed by path: records, single fields as text, errors with `error`', () => {
    const bulk = bulkParsed(
      parse(ipinfo as Adapter<unknown>, '/batch ["8.8.8.8/json","8.8.8.8/country","1.1.1.1"]'),
    );
    const [json, country, failed] = bulk.items;
    const out = bulkOf(ipinfo as Adapter<unknown>).render(bulk.state, [
      { key: '8.8.8.8/json', answer: ipinfo.renderIp(json?.state as never, GOOGLE_DNS) },
      { key: '8.8.8.8/country', answer: ipinfo.renderIp(country?.state as never, GOOGLE_DNS) },
      { key: '1.1.1.1', answer: ipinfo.renderError(failed?.state as never, 'backend_timeout', 'x', {}) },
    ]);
    expect(out.status).toBe(200);
    const j = body(out);
    expect(j['8.8.8.8/json']).toMatchObject({ ip: '8.8.8.8', country: 'US' });
    expect(j['8.8.8.8/country']).toBe('US');
    expect(j['1.1.1.1']).toMatchObject({ status: 504, error: { title: 'Gateway timeout' } });
  });

  it('ipinfo ?filter=1 leaves failed lookups out of the answer', () => {
    const bulk = bulkParsed(parse(ipinfo as Adapter<unknown>, '/batch?filter=1 ["8.8.8.8","1.1.1.1"]'));
    const out = bulkOf(ipinfo as Adapter<unknown>).render(bulk.state, [
      { key: '8.8.8.8', answer: ipinfo.renderIp(bulk.items[0]?.state as never, GOOGLE_DNS) },
      { key: '1.1.1.1', answer: ipinfo.renderError(null, 'backend_unavailable', '', {}) },
    ]);
    expect(Object.keys(body(out))).toEqual(['8.8.8.8']);
  });
});
