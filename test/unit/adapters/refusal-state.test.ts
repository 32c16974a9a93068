/**
 * Refusals from `parse` keep the adapter state, so the error is rendered in the shape the client asked for (D24):
 * Nominatim's format=xml (and its xml default) gets an XML error, HERE's legacy 6.2 API the legacy error shape.
 */
import { here } from '../../../adapters/here';
import { nominatim } from '../../../adapters/nominatim';
import type { Adapter, ParseResult } from '../../../adapters/types';
import { req } from './fixtures';

/** Parse, then render the refusal with the state parse returned (what the gateway's pipeline does). */
function renderRefusal<S>(adapter: Adapter<S>, path: string, query: string) {
  const result: ParseResult<S> = adapter.parse(req(path, query));
  if (result === null || result.ok) throw new Error(`expected a refusal for ${path}?${query}`);
  return adapter.renderError(result.state ?? null, result.code, result.detail, result.facts ?? {});
}

describe('nominatim: a refusal is rendered in the requested format', () => {
  it.each([
    ['format=xml&lat=abc&lon=2.29', 'lat'],
    ['lat=abc&lon=2.29', 'lat'], // xml is Nominatim's default format
    ['format=xml&lat=48.85&lon=999', 'lon'],
    ['format=xml&lat=48.85&lon=2.29&zoom=40', 'zoom'],
  ])('%s → 400 XML error', (query) => {
    const r = renderRefusal(nominatim, '/reverse', query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/xml/);
    expect(r.body).toMatch(/^<\?xml/);
    expect(r.body).toMatch(/<error>[\s\S]*<code>400<\/code>[\s\S]*<message>[^<]+<\/message>[\s\S]*<\/error>/);
  });

  it.each([
    ['format=json&lat=abc&lon=2.29', { error: { code: 400 } }],
    ['format=jsonv2&lat=abc&lon=2.29', { error: { code: 400 } }],
    ['format=nonsense&lat=48.85&lon=2.29', { error: { code: 400 } }], // unknown format: JSON
    ['format=xml&format=json&lat=48.85&lon=2.29', { error: { code: 400 } }], // repeated format: JSON
  ])('%s → 400 JSON error', (query, shape) => {
    const r = renderRefusal(nominatim, '/reverse', query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/json/);
    expect(JSON.parse(r.body)).toMatchObject(shape);
  });
});

describe('here: a refusal keeps the API it was asked on', () => {
  const LEGACY = '/6.2/reversegeocode.json';
  it.each([
    [LEGACY, 'pos=abc,2.29&apiKey=K'],
    [LEGACY, 'pos=48.85'],
    [LEGACY, 'pos=1,2&pos=3,4'],
    [LEGACY, 'prox=999,2'],
  ])('%s?%s → 400 legacy ApplicationError', (path, query) => {
    const r = renderRefusal(here, path, query);
    expect(r.status).toBe(400);
    const b = JSON.parse(r.body);
    expect(b).toMatchObject({ _type: 'ns2:Error', type: 'ApplicationError', subtype: 'InvalidInputData' });
    expect(typeof b.Details).toBe('string');
    expect(b.title).toBeUndefined();
  });

  it.each([
    ['/v1/revgeocode', 'at=abc,2.29'],
    ['/v1/revgeocode', 'at=1,2&at=3,4'],
  ])('%s?%s → 400 v7 error', (path, query) => {
    const r = renderRefusal(here, path, query);
    expect(r.status).toBe(400);
    const b = JSON.parse(r.body);
    expect(b).toMatchObject({ status: 400, title: 'Illegal input for parameter' });
    expect(b._type).toBeUndefined();
  });
});
