/**
 * Issue 16 item 1: every request form a drop-in host lists in its `*_FORMS` table parses, as the pipeline hands it
 * over (path decoded once, query raw), into the lookup the example asks for, and renders a success.
 */
import { ADAPTERS } from '../../../adapters';
import type { RequestForm } from '../../../adapters/common/parse';
import type { Adapter, AdapterRequest } from '../../../adapters/types';
import { GOOGLE_DNS, PARIS, parsed, req } from './fixtures';

/** The drop-in hosts of issue 5 and Photon and Pelias (issue 16), each of which must list its forms. */
const HOSTS = [
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
];

/** The request as the pipeline builds it from a raw request target. */
function asReceived(example: string): AdapterRequest {
  const q = example.indexOf('?');
  const rawPath = q < 0 ? example : example.slice(0, q);
  return req(decodeURIComponent(rawPath), q < 0 ? '' : example.slice(q + 1));
}

function formsOf(name: string): readonly RequestForm[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(`../../../adapters/${name}`) as Record<string, unknown>;
  const found = Object.entries(mod).find(([k]) => k.endsWith('_FORMS'));
  if (!found) throw new Error(`adapters/${name}.ts exports no *_FORMS table`);
  return found[1] as readonly RequestForm[];
}

const cases = HOSTS.flatMap((name) => formsOf(name).map((f) => [name, f.example, f.clients] as const));

describe('accepted request forms (issue 16 item 1)', () => {
  it('lists at least three forms per host', () => {
    for (const name of HOSTS) expect(formsOf(name).length).toBeGreaterThanOrEqual(3);
  });

  it.each(cases)('%s accepts %s (%s)', (name, example) => {
    const a = ADAPTERS[name] as Adapter<unknown>;
    const { call, state } = parsed(a.parse(asReceived(example)));
    const c = call as { kind: string; lat?: number; lon?: number; ip?: string | null };
    if (c.kind === 'reverse') {
      expect([c.lat, c.lon]).toEqual([48.8584, 2.2945]);
      expect(a.renderReverse(state, PARIS).status).toBe(200);
    } else {
      expect(c.kind).toBe('ipv4');
      expect([null, '8.8.8.8']).toContain(c.ip);
      expect(a.renderIp(state, GOOGLE_DNS).status).toBe(200);
    }
  });
});
