/** Reading and writing the compact geodata files (build/geodata/: geodata.bin and meta.json). */
import fs from 'node:fs';
import path from 'node:path';
import { readContainer, sectionOf, writeContainer } from './container';
import type { Geodata, GeodataMeta, StringTables } from './model';
import { packedSections, unpackSections, type PackedStrings } from './packed-strings';

/** File names inside the geodata directory. */
export const GEODATA_FILES = { bin: 'geodata.bin', meta: 'meta.json' } as const;

const STRING_TABLES = ['names', 'countries', 'admin1Codes', 'admin1Names', 'admin2Names', 'orgs'] as const;

/** Writes the model into dir (created if needed); meta.json last, so it marks a complete build. */
export function writeGeodata(dir: string, data: Geodata): void {
  fs.mkdirSync(dir, { recursive: true });
  const { places, asn, grid } = data;
  const bin = writeContainer({
    lat: places.lat,
    lon: places.lon,
    country: places.country,
    admin1: places.admin1,
    admin2: places.admin2,
    countryStart: places.countryStart,
    countryAxis: places.countryAxis,
    globalIds: places.globalIds,
    globalAxis: places.globalAxis,
    asnStart: asn.start,
    asnEnd: asn.end,
    asnNumber: asn.asn,
    asnOrg: asn.org,
    gridCells: grid.cells,
    gridShape: new Uint32Array([grid.cellsPerDegree]),
    searchKeyText: data.search.keyText,
    searchKeyOffsets: data.search.keyOffsets,
    searchKeyPostings: data.search.keyPostings,
    searchPostings: data.search.postings,
    searchPopulation: data.search.population,
    searchPlaceScore: data.search.placeScore,
    searchBlockMax: data.search.blockMax,
    searchBlockCountries: data.search.blockCountries,
    searchBucket: data.search.bucket,
    ...Object.assign({}, ...STRING_TABLES.map((name) => packedSections(name, data.strings[name]))),
  });
  fs.rmSync(path.join(dir, GEODATA_FILES.meta), { force: true });
  fs.writeFileSync(path.join(dir, GEODATA_FILES.bin), bin);
  fs.writeFileSync(path.join(dir, GEODATA_FILES.meta), JSON.stringify(data.meta, null, 2) + '\n');
}

/** Reads the build stamp, or null when the directory holds no complete build. */
export function readGeodataMeta(dir: string): GeodataMeta | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, GEODATA_FILES.meta), 'utf8')) as GeodataMeta;
  } catch {
    return null;
  }
}

/** Loads the compact files; throws a clear error naming the directory when they are missing. */
export function readGeodata(dir: string): Geodata {
  const meta = readGeodataMeta(dir);
  if (!meta) throw new Error(`geodata missing in ${dir}: run \`npm run build\` (or \`npm run build:data\`)`);
  const s = readContainer(readAligned(path.join(dir, GEODATA_FILES.bin)));
  const packed = (name: string): PackedStrings =>
    unpackSections(sectionOf(s, `${name}Text`, Uint8Array), sectionOf(s, `${name}Offsets`, Uint32Array));
  const strings = Object.fromEntries(
    STRING_TABLES.map((name) => [name, packed(name)]),
  ) as unknown as StringTables;
  const shape = sectionOf(s, 'gridShape', Uint32Array);
  return {
    places: {
      lat: sectionOf(s, 'lat', Int32Array),
      lon: sectionOf(s, 'lon', Int32Array),
      country: sectionOf(s, 'country', Uint16Array),
      admin1: sectionOf(s, 'admin1', Int32Array),
      admin2: sectionOf(s, 'admin2', Int32Array),
      countryStart: sectionOf(s, 'countryStart', Uint32Array),
      countryAxis: sectionOf(s, 'countryAxis', Uint8Array),
      globalIds: sectionOf(s, 'globalIds', Uint32Array),
      globalAxis: sectionOf(s, 'globalAxis', Uint8Array),
    },
    asn: {
      start: sectionOf(s, 'asnStart', Uint32Array),
      end: sectionOf(s, 'asnEnd', Uint32Array),
      asn: sectionOf(s, 'asnNumber', Uint32Array),
      org: sectionOf(s, 'asnOrg', Uint32Array),
    },
    grid: { cellsPerDegree: shape[0] as number, cells: sectionOf(s, 'gridCells', Uint16Array) },
    search: {
      keyText: sectionOf(s, 'searchKeyText', Uint8Array),
      keyOffsets: sectionOf(s, 'searchKeyOffsets', Uint32Array),
      keyPostings: sectionOf(s, 'searchKeyPostings', Uint32Array),
      postings: sectionOf(s, 'searchPostings', Uint32Array),
      population: sectionOf(s, 'searchPopulation', Uint32Array),
      placeScore: sectionOf(s, 'searchPlaceScore', Float64Array),
      blockMax: sectionOf(s, 'searchBlockMax', Float64Array),
      blockCountries: sectionOf(s, 'searchBlockCountries', Uint32Array),
      bucket: sectionOf(s, 'searchBucket', Uint32Array),
    },
    strings,
    meta,
  };
}

/** Reads a whole file into a fresh ArrayBuffer (offset 0, so typed-array views need no copy). */
function readAligned(file: string): Uint8Array {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const bytes = new Uint8Array(new ArrayBuffer(size));
    let done = 0;
    while (done < size) {
      const n = fs.readSync(fd, bytes, done, size - done, done);
      if (n === 0) throw new Error(`geodata: ${file} is shorter than expected`);
      done += n;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}
