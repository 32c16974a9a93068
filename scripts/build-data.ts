/**
 * `npm run build:data`: converts the data packages in node_modules into build/geodata/ (compact files the
 * backend loads at start). Skips quickly when the stamp (meta.json) names the same source versions.
 * Usage: node dist/scripts/build-data.js [--force] [--out DIR]
 */
import { buildGeodata } from '../backend/geodata/build';
import { readGeodataMeta, writeGeodata } from '../backend/geodata/files';
import { isUpToDate, readRawGeodata, sourceVersions } from '../backend/geodata/sources';
import { defaultGeodataDir } from '../backend/paths';

function main(argv: string[]): void {
  const force = argv.includes('--force');
  const outIndex = argv.indexOf('--out');
  const out = outIndex >= 0 && argv[outIndex + 1] ? (argv[outIndex + 1] as string) : defaultGeodataDir();
  const started = Date.now();
  if (!force && isUpToDate(readGeodataMeta(out), sourceVersions())) {
    console.log(`build-data: ${out} is up to date (${Date.now() - started} ms)`);
    return;
  }
  const data = buildGeodata(readRawGeodata());
  writeGeodata(out, data);
  const c = data.meta.counts;
  console.log(
    `build-data: wrote ${out} in ${Date.now() - started} ms ` +
      `(${c.places} places, ${c.countries} countries, ${c.asnRanges} ASN ranges, grid 1/${c.gridCellsPerDegree}°)`,
  );
}

main(process.argv.slice(2));
