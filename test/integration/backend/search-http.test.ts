import fs from 'node:fs';
import type { ReverseRecord, SearchAnswer } from '../../../backend/records';
import { startBackend, type RunningBackend } from '../../../backend/server';
import { writeFixtureDataSource } from '../../fixtures/backend/fixture-data';

/** `GET /search`'s HTTP contract on the fixture data, in process on an ephemeral port. */
describe('backend /search over HTTP (fixture data)', () => {
  const source = writeFixtureDataSource();
  let backend: RunningBackend;
  beforeAll(async () => {
    backend = await startBackend({ port: 0, dataSource: source });
  });
  afterAll(async () => {
    await backend.close();
    fs.rmSync(source.dir, { recursive: true, force: true });
  });
  const get = (path: string, init?: RequestInit) => fetch(backend.url + path, init);

  it('answers the best places as JSON, each with every reverse field but the query point', async () => {
    const res = await get('/search?q=Paris');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const answer = (await res.json()) as SearchAnswer;
    expect(answer.query).toEqual({ q: 'Paris', normalized: 'paris', countrycodes: null, limit: 10 });
    expect(answer.results.map((r) => r.locality)).toEqual(['Paris', 'Paris 16 Passy']);
    const reverse = (await (await get('/reverse?lat=48.8584&lon=2.2945')).json()) as ReverseRecord;
    const placeFields = Object.keys(reverse).filter((k) => k !== 'query');
    for (const r of answer.results) {
      expect(Object.keys(r).sort()).toEqual(
        [...placeFields, 'score', 'match', 'matchedAlternate', 'population'].sort(),
      );
    }
  });

  it('applies countrycodes and limit', async () => {
    const us = (await (await get('/search?q=san&countrycodes=us')).json()) as SearchAnswer;
    expect(us.query.countrycodes).toEqual(['US']);
    expect(us.results.map((r) => r.locality)).toEqual(['San Diego']);
    const one = (await (await get('/search?q=s&limit=1')).json()) as SearchAnswer;
    expect(one.results.map((r) => r.locality)).toEqual(['Shenzhen']);
  });

  it('answers a miss with 200 and an empty list', async () => {
    const res = await get('/search?q=Xyzzyplugh');
    expect(res.status).toBe(200);
    expect(((await res.json()) as SearchAnswer).results).toEqual([]);
  });

  it.each([
    ['/search', 'q'],
    ['/search?q=', 'q'],
    ['/search?q=%21%21%21', 'q'],
    ['/search?q=a&q=b', 'q'],
    [`/search?q=${'x'.repeat(201)}`, 'q'],
    ['/search?q=Paris&limit=0', 'limit'],
    ['/search?q=Paris&limit=51', 'limit'],
    ['/search?q=Paris&limit=abc', 'limit'],
    ['/search?q=Paris&limit=', 'limit'],
    ['/search?q=Paris&countrycodes=USA', 'countrycodes'],
    ['/search?q=Paris&countrycodes=xx', 'countrycodes'],
    ['/search?q=Paris&countrycodes=', 'countrycodes'],
  ])('answers %s with 400 problem+json naming %s', async (path, parameter) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      parameter,
      title: 'Invalid parameter',
    });
    expect(body.detail).toEqual(expect.stringContaining(parameter));
  });

  it('answers HEAD without a body and other methods with 405', async () => {
    const head = await get('/search?q=Paris', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
    expect(await head.text()).toBe('');
    const post = await get('/search?q=Paris', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('never answers 500 to seeded random garbage queries', async () => {
    let s = 77;
    const rnd = (n: number): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s % n);
    const alphabet = Array.from('abcZ09 -,.%&=?/\u00e9\u00f8\u0000\u0301東\ud83d\ude00');
    for (let i = 0; i < 300; i++) {
      const junk = Array.from({ length: rnd(14) }, () => alphabet[rnd(alphabet.length)]).join('');
      const field = ['q', 'limit', 'countrycodes'][rnd(3)] as string;
      const path =
        field === 'q'
          ? `/search?q=${encodeURIComponent(junk)}`
          : `/search?q=s&${field}=${encodeURIComponent(junk)}`;
      const res = await get(path);
      expect([200, 400]).toContain(res.status);
      await res.arrayBuffer();
    }
  });

  it('answers malformed percent-encoding and invalid UTF-8 with 400, not 500', async () => {
    for (const path of ['/search?q=%FF', '/search?q=%ED%A0%80', '/search?q=%', '/search?q=%E4%B8']) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      await res.arrayBuffer();
    }
  });
});
