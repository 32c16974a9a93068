/** Build-time conversion of the raw data packages into the compact model (pure: inputs in, model out). */
import { convertAsn } from './convert-asn';
import { convertPlaces, internCountry } from './convert-places';
import { convertSearch } from './convert-search';
import { parseGazetteer } from './gazetteer';
import { countryCodeAt, borderPolygons } from './countries';
import { buildCountryGrid } from './country-grid';
import type { AdminRow, CityRow, Geodata } from './model';
import { packStrings } from './packed-strings';

/** Version of the compact file format; bump when the layout changes so stale builds are rebuilt. */
export const GEODATA_FORMAT = 6;

/** Default raster resolution: 10 cells per degree (0.1°, 6.48 M cells, 13 MB). */
export const DEFAULT_CELLS_PER_DEGREE = 10;

/** The raw inputs, as read from the npm data packages (or test fixtures). */
export interface RawGeodata {
  cities: readonly CityRow[];
  admin1: readonly AdminRow[];
  admin2: readonly AdminRow[];
  asnCsv: string;
  /** GeoNames cities500.txt (population and alternate names for the search index). */
  gazetteerTsv: string;
  cellsPerDegree: number;
  /** Source package name → version, written into the build stamp. */
  sources: Record<string, string>;
}

/** Converts raw data into the compact model (country raster, place trees, search index, ASN table). */
export function buildGeodata(raw: RawGeodata, now: Date = new Date()): Geodata {
  const countries: string[] = [];
  const countryIndex = new Map<string, number>();
  const grid = buildCountryGrid(raw.cellsPerDegree, borderPolygons(), (lon, lat) => {
    const code = countryCodeAt(lon, lat);
    return code === null ? 0 : internCountry(code, countries, countryIndex) + 1;
  });
  const converted = convertPlaces(raw.cities, raw.admin1, raw.admin2, countries, countryIndex);
  const { places } = converted;
  const { search, joined } = convertSearch(
    converted.names.map((name, i) => ({
      name,
      lat: (places.lat[i] as number) / 1e5,
      lon: (places.lon[i] as number) / 1e5,
      country: countries[places.country[i] as number] as string,
    })),
    parseGazetteer(raw.gazetteerTsv),
    places.country,
    countries.length,
  );
  const orgs: string[] = [];
  const { table: asn } = convertAsn(raw.asnCsv, orgs);
  return {
    places: converted.places,
    asn,
    grid,
    search,
    strings: {
      names: packStrings(converted.names),
      countries: packStrings(countries),
      admin1Codes: packStrings(converted.admin1Codes),
      admin1Names: packStrings(converted.admin1Names),
      admin2Names: packStrings(converted.admin2Names),
      orgs: packStrings(orgs),
    },
    meta: {
      format: GEODATA_FORMAT,
      builtAt: now.toISOString(),
      sources: raw.sources,
      counts: {
        places: raw.cities.length,
        countries: countries.length,
        asnRanges: asn.start.length,
        gridCellsPerDegree: raw.cellsPerDegree,
        gazetteerJoined: joined,
        searchKeys: search.keyOffsets.length - 1,
        searchPostings: search.postings.length,
      },
    },
  };
}
