/** Place search (`GET /search`): normalised query → best places of the index → records in the reverse shape. */
import tzlookup from '@photostructure/tz-lookup';
import { REVERSE_ATTRIBUTION } from './attribution';
import type { Geodata } from './geodata/model';
import type { SearchAnswer, SearchRecord } from './records';
import { displayName, type ReverseGeocoder } from './reverse';
import { SearchIndex, TopPlaces } from './search/index';
import { EXACT } from './search/score';

/** A validated search: the text, its normalised key, the country filter (indexes and codes) and the limit. */
export interface SearchQuery {
  q: string;
  key: string;
  countries: { index: number[]; codes: string[] } | null;
  limit: number;
}

/** Answers `GET /search` from the geodata's search index. */
export class PlaceSearch {
  readonly index: SearchIndex;
  private readonly top = new TopPlaces();
  private readonly mask: Uint8Array;

  constructor(
    private readonly data: Geodata,
    private readonly reverse: ReverseGeocoder,
  ) {
    this.index = new SearchIndex(data.search, data.places.country);
    this.mask = new Uint8Array(reverse.countryCount);
  }

  /** Country index of an upper-case ISO alpha-2 code, -1 when unknown. */
  countryIndexOf(code: string): number {
    return this.reverse.countryIndexOf(code);
  }

  /** The best places for a validated query, best first. */
  search(query: SearchQuery): SearchAnswer {
    const top = this.top;
    top.reset(query.limit);
    if (query.countries === null) this.index.search(query.key, null, top);
    else {
      for (const c of query.countries.index) this.mask[c] = 1;
      try {
        this.index.search(query.key, this.mask, top);
      } finally {
        for (const c of query.countries.index) this.mask[c] = 0;
      }
    }
    const results: SearchRecord[] = [];
    for (let i = 0; i < top.count; i++)
      results.push(this.record(top.place[i] as number, top.score[i] as number, top.alternate[i] === 1));
    return {
      query: {
        q: query.q,
        normalized: query.key,
        countrycodes: query.countries?.codes ?? null,
        limit: query.limit,
      },
      results,
      attribution: REVERSE_ATTRIBUTION,
    };
  }

  private record(place: number, score: number, alternate: boolean): SearchRecord {
    const { places, strings, search } = this.data;
    const c = places.country[place] as number;
    const country = this.reverse.countryNameOf(c);
    const a1 = places.admin1[place] as number;
    const a2 = places.admin2[place] as number;
    const region = strings.admin1Names.get(a1);
    const county = strings.admin2Names.get(a2);
    const locality = strings.names.get(place) as string;
    const lat = (places.lat[place] as number) / 1e5;
    const lon = (places.lon[place] as number) / 1e5;
    const population = search.population[place] as number;
    return {
      countryCode: this.reverse.countryCodeOf(c),
      country,
      region,
      regionCode: strings.admin1Codes.get(a1),
      county,
      locality,
      postcode: null,
      distanceKm: null,
      displayName: displayName(locality, county, region, country),
      lat,
      lon,
      timezone: tzlookup(lat, lon),
      attribution: REVERSE_ATTRIBUTION,
      score: Math.round(score * 1e4) / 1e4,
      match: score >= EXACT ? 'exact' : 'prefix',
      matchedAlternate: alternate,
      population: population > 0 ? population : null,
    };
  }
}
