import fs from 'node:fs';
import fc from 'fast-check';
import { REVERSE_ATTRIBUTION } from '../../../backend/attribution';
import { convertSearch } from '../../../backend/geodata/convert-search';
import { readGeodata } from '../../../backend/geodata/files';
import type { GazetteerRow, PlaceKey } from '../../../backend/geodata/gazetteer';
import { ReverseGeocoder } from '../../../backend/reverse';
import { PlaceSearch, type SearchQuery } from '../../../backend/place-search';
import { MAX_SEARCH_LIMIT, SearchIndex, TopPlaces } from '../../../backend/search/index';
import { normaliseName } from '../../../backend/search/normalise';
import { EXACT, OWN_NAME, PREFIX, populationScore } from '../../../backend/search/score';
import { buildFixtureGeodata, writeFixtureDataSource } from '../../fixtures/backend/fixture-data';

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

describe('place search on the fixture places (build → files → load)', () => {
  const source = writeFixtureDataSource();
  afterAll(() => fs.rmSync(source.dir, { recursive: true, force: true }));
  const geodata = readGeodata(source.geodataDir);
  const search = new PlaceSearch(geodata, new ReverseGeocoder(geodata));
  const find = (q: string, codes: string[] | null = null, limit = 10) => {
    const query: SearchQuery = {
      q,
      key: normaliseName(q),
      countries: codes ? { codes, index: codes.map((c) => search.countryIndexOf(c)) } : null,
      limit,
    };
    return search.search(query).results;
  };
  const names = (q: string, codes: string[] | null = null, limit = 10): string[] =>
    find(q, codes, limit).map((r) => `${r.locality} ${r.countryCode}`);

  it('round-trips the search tables through the compact files', () => {
    const built = buildFixtureGeodata();
    expect([...geodata.search.keyText]).toEqual([...built.search.keyText]);
    expect([...geodata.search.postings]).toEqual([...built.search.postings]);
    expect([...geodata.search.population]).toEqual([...built.search.population]);
    expect([...geodata.search.bucket]).toEqual([...built.search.bucket]);
    expect(geodata.meta.counts).toMatchObject({ gazetteerJoined: 37 });
  });

  it('answers "Paris" with Paris, FR first as a full record in the reverse shape, then the prefix match', () => {
    const [paris, passy, ...rest] = find('Paris');
    expect(paris).toEqual({
      countryCode: 'FR',
      country: 'France',
      region: 'Île-de-France',
      regionCode: '11',
      county: 'Paris',
      locality: 'Paris',
      postcode: null,
      distanceKm: null,
      displayName: 'Paris, Île-de-France, France',
      lat: 48.85341,
      lon: 2.3488,
      timezone: 'Europe/Paris',
      attribution: REVERSE_ATTRIBUTION,
      score: round(EXACT + OWN_NAME + populationScore(2138551)),
      match: 'exact',
      matchedAlternate: false,
      population: 2138551,
    });
    expect(passy).toMatchObject({
      locality: 'Paris 16 Passy',
      match: 'prefix',
      population: null,
      score: 1.1,
    });
    expect(rest).toEqual([]);
  });

  it('matches case, diacritic and punctuation variants of a name', () => {
    expect(names('reykjavik')).toEqual(['Reykjavík IS']);
    expect(names('TROMSO')).toEqual(['Tromsø NO']);
    expect(names('bayamon')).toEqual(['Bayamón PR']);
    expect(names("nuku'alofa")).toEqual(['Nuku‘alofa TO']);
    expect(names('  paris!! ')).toEqual(['Paris FR', 'Paris 16 Passy FR']);
  });

  it('matches alternate names (other languages, former names) and says so', () => {
    expect(find('Londres')[0]).toMatchObject({ locality: 'London', matchedAlternate: true, match: 'exact' });
    expect(names('Париж')).toEqual(['Paris FR']);
    expect(names('Canton')).toEqual(['Guangzhou CN']);
    expect(names('godthab')).toEqual(['Nuuk GL']);
    expect(find('Londres')[0]?.score).toBe(round(EXACT + populationScore(8961989)));
  });

  it('ranks prefix matches by population (San Juan before San Diego)', () => {
    expect(names('san')).toEqual(['San Juan PR', 'San Diego US']);
    expect(names('s', null, 2)).toEqual(['Shenzhen CN', 'Sydney AU']);
  });

  it('filters by country and keeps the limit', () => {
    expect(names('san', ['US'])).toEqual(['San Diego US']);
    expect(names('san', ['US', 'PR'])).toEqual(['San Juan PR', 'San Diego US']);
    expect(names('Paris', ['US'])).toEqual([]);
    expect(find('s', null, 3)).toHaveLength(3);
    expect(find('s', null, MAX_SEARCH_LIMIT).length).toBeGreaterThan(5);
  });

  it('answers a miss with an empty list', () => {
    expect(find('Xyzzyplugh')).toEqual([]);
  });

  it('never joins a neighbourhood to a nearby city by position (Times Square keeps its own name only)', () => {
    expect(find('Times Square')[0]).toMatchObject({ population: null, matchedAlternate: false });
    expect(find('NYC')).toEqual([]);
    expect(find('New York')).toEqual([]);
  });

  it('echoes the query, its normalised form, the filter and the limit', () => {
    const answer = search.search({ q: 'Zürich', key: 'zurich', countries: null, limit: 3 });
    expect(answer.query).toEqual({ q: 'Zürich', normalized: 'zurich', countrycodes: null, limit: 3 });
    expect(answer.attribution).toBe(REVERSE_ATTRIBUTION);
  });
});

describe('the score', () => {
  const population = fc.integer({ min: 0, max: 40_000_000 });
  it('puts every exact match above every prefix match, whatever the populations and name kinds', () => {
    fc.assert(
      fc.property(population, population, fc.boolean(), fc.boolean(), (p1, p2, own1, own2) => {
        const exact = EXACT + (own1 ? OWN_NAME : 0) + populationScore(p1);
        const prefix = PREFIX + (own2 ? OWN_NAME : 0) + populationScore(p2);
        expect(exact).toBeGreaterThan(prefix);
      }),
    );
  });

  it('weighs the own name as one decade of population and is monotonic in population', () => {
    expect(OWN_NAME + populationScore(999)).toBeCloseTo(populationScore(9999), 3);
    fc.assert(
      fc.property(population, population, (a, b) => {
        if (a < b) expect(populationScore(a)).toBeLessThan(populationScore(b));
      }),
    );
  });
});

/** Seeded PRNG (LCG) so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the search index against brute force (synthetic names with many shared prefixes)', () => {
  const r = rng(7);
  const letters = ['a', 'b', 'c', 'é', 'ø', ' ', 'ab', 'ba', 'д', '東'];
  const word = (): string =>
    Array.from({ length: 1 + Math.floor(r() * 8) }, () => letters[Math.floor(r() * letters.length)]).join('');
  const countries = ['AA', 'BB', 'CC', 'DD'];
  const places: PlaceKey[] = [];
  const rows: GazetteerRow[] = [];
  for (let i = 0; i < 4000; i++) {
    const name = word();
    const lat = -80 + (160 * i) / 4000;
    const lon = -170 + 340 * r();
    // DD is rare, so a filter on it skips most blocks (blockCountries).
    const country = (r() < 0.02 ? 'DD' : countries[i % 3]) as string;
    places.push({ name, lat, lon, country });
    const population = r() < 0.2 ? 0 : Math.floor(10 ** (7 * r()));
    rows.push({
      name,
      asciiName: name,
      alternateNames: Array.from({ length: Math.floor(r() * 6) }, word),
      lat,
      lon,
      country,
      population,
    });
  }
  const placeCountry = Uint16Array.from(places, (p) => countries.indexOf(p.country));
  const { search: tables } = convertSearch(places, rows, placeCountry, countries.length);
  const index = new SearchIndex(tables, placeCountry);

  // Every (key, place, alternate) triple, straight from the tables.
  const entries: { key: string; place: number; alternate: boolean }[] = [];
  const keyCount = tables.keyOffsets.length - 1;
  for (let k = 0; k < keyCount; k++) {
    const key = Buffer.from(
      tables.keyText.subarray(tables.keyOffsets[k] as number, tables.keyOffsets[k + 1] as number),
    ).toString('utf8');
    for (let j = tables.keyPostings[k] as number; j < (tables.keyPostings[k + 1] as number); j++) {
      const posting = tables.postings[j] as number;
      entries.push({ key, place: posting & 0x7fffffff, alternate: posting >>> 31 === 1 });
    }
  }

  function bruteForce(q: string, mask: Uint8Array | null, limit: number): [number, number][] {
    const best = new Map<number, number>();
    for (const e of entries) {
      if (mask && mask[placeCountry[e.place] as number] !== 1) continue;
      const match = e.key === q ? EXACT : e.key.startsWith(q) ? PREFIX : 0;
      if (match === 0) continue;
      // Same association as the index (match + static part), so equal scores tie exactly.
      const score =
        match + ((e.alternate ? 0 : OWN_NAME) + populationScore(tables.population[e.place] as number));
      if (score > (best.get(e.place) ?? -1)) best.set(e.place, score);
    }
    return [...best.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
  }

  it('uses enough keys to exercise the block pruning', () => {
    expect(keyCount).toBeGreaterThan(64 * 100);
  });

  it('returns exactly the brute-force best places, in order, with and without a country filter', () => {
    const top = new TopPlaces();
    const mask = new Uint8Array(countries.length);
    for (let i = 0; i < 1500; i++) {
      const kind = r();
      const base = kind < 0.8 ? (entries[Math.floor(r() * entries.length)] as { key: string }).key : word();
      const q = normaliseName(kind < 0.5 ? base.slice(0, 1 + Math.floor(r() * base.length)) : base);
      if (q === '') continue;
      // Mostly small limits, so long prefix ranges span more blocks than the ones picked first.
      const limit = 1 + Math.floor(r() ** 3 * MAX_SEARCH_LIMIT);
      const filtered = r() < 0.4;
      mask.fill(0);
      if (filtered) mask[r() < 0.5 ? 3 : Math.floor(r() * 3)] = 1;
      top.reset(limit);
      index.search(q, filtered ? mask : null, top);
      const got = Array.from({ length: top.count }, (_, j) => [top.place[j], top.score[j]]);
      const want = bruteForce(q, filtered ? mask : null, limit);
      expect({ q, filtered, limit, got: got.map((g) => g[0]) }).toEqual({
        q,
        filtered,
        limit,
        got: want.map((w) => w[0]),
      });
      got.forEach((g, j) => expect(g[1]).toBeCloseTo((want[j] as [number, number])[1], 12));
    }
  });
});
