import type { SearchAnswer, SearchRecord } from '../../../backend/records';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';

/** `GET /search` of the real process on the real built data (needs `npm run build`). */
describe('backend search smoke test: real data through HTTP', () => {
  let backend: BackendProcess;
  beforeAll(async () => {
    backend = await startBackendProcess();
  }, 30_000);
  afterAll(async () => {
    await backend?.stop();
  });
  const search = async (query: string): Promise<SearchRecord[]> => {
    const res = await fetch(`${backend.url}/search?${query}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as SearchAnswer).results;
  };

  it('answers "Paris" with Paris, France first, then smaller places named Paris', async () => {
    const results = await search('q=Paris');
    expect(results[0]).toMatchObject({
      countryCode: 'FR',
      locality: 'Paris',
      region: 'Île-de-France',
      match: 'exact',
      matchedAlternate: false,
      timezone: 'Europe/Paris',
    });
    expect(results[0]?.population).toBeGreaterThan(2_000_000);
    expect(results.length).toBe(10);
    expect(results.slice(1, 4).map((r) => r.locality)).toEqual(['Paris', 'Paris', 'Paris']);
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('answers "Springfield" filtered to the US with US places only, the most populous first', async () => {
    const results = await search('q=Springfield&countrycodes=us&limit=5');
    expect(results).toHaveLength(5);
    expect(results.every((r) => r.countryCode === 'US' && r.locality === 'Springfield')).toBe(true);
    expect(results[0]).toMatchObject({ region: 'Missouri', county: 'Greene County' });
    const populations = results.map((r) => r.population ?? 0);
    expect(populations).toEqual([...populations].sort((a, b) => b - a));
  });

  it('matches "Zurich" to Zürich and "Москва" (an alternate name) to Moscow', async () => {
    expect((await search('q=Zurich'))[0]).toMatchObject({
      countryCode: 'CH',
      locality: 'Zürich',
      match: 'exact',
    });
    expect((await search(`q=${encodeURIComponent('Москва')}`))[0]).toMatchObject({
      countryCode: 'RU',
      locality: 'Moscow',
      matchedAlternate: true,
    });
  });

  it('completes a prefix ("san fr" → San Francisco first)', async () => {
    expect((await search('q=san%20fr'))[0]).toMatchObject({ locality: 'San Francisco', match: 'prefix' });
  });

  it('answers a miss with an empty list', async () => {
    expect(await search('q=Qxzqxzqxzq')).toEqual([]);
  });

  it.each([
    ['', 'q'],
    ['q=Paris&limit=0', 'limit'],
    ['q=Paris&countrycodes=usa', 'countrycodes'],
  ])('answers bad parameters (%j) with 400 naming %s', async (query, parameter) => {
    const res = await fetch(`${backend.url}/search?${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_parameter', parameter });
  });
});
