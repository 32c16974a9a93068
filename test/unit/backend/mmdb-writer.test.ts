import { Reader, type Response } from 'maxmind';
import { Float32, writeMmdb } from '../../fixtures/backend/mmdb-writer';
import { FIXTURE_MMDB_ENTRIES } from '../../fixtures/backend/fixture-data';

describe('test MMDB writer (read back with maxmind)', () => {
  const reader = new Reader<Response>(writeMmdb(FIXTURE_MMDB_ENTRIES, { buildEpoch: 1_750_000_000 }));

  it('writes metadata maxmind understands', () => {
    expect(reader.metadata.ipVersion).toBe(4);
    expect(reader.metadata.recordSize).toBe(24);
    expect(reader.metadata.buildEpoch.toISOString()).toBe('2025-06-15T15:06:40.000Z');
  });

  it('finds records with their prefix length and misses uncovered addresses', () => {
    const [hit, prefix] = reader.getWithPrefixLength('81.2.69.142');
    expect(hit).toMatchObject({ city: 'London', country_code: 'GB', state1: 'England' });
    expect(prefix).toBe(24);
    expect(reader.get('8.8.4.4')).toBeNull();
    expect(reader.get('9.9.9.9')).toBeNull();
  });

  it('stores float32 like DB-IP (not exactly the decimal)', () => {
    const hit = reader.get('8.8.8.8') as unknown as { latitude: number };
    expect(hit.latitude).not.toBe(37.422);
    expect(hit.latitude).toBeCloseTo(37.422, 5);
  });

  it('encodes nested maps, arrays, booleans, doubles and large strings', () => {
    const long = 'x'.repeat(70_000);
    const bytes = writeMmdb([
      { cidr: '10.1.0.0/16', value: { a: [1, 2.5, true, false], m: { s: long }, f: new Float32(1.5) } },
    ]);
    expect(new Reader<Response>(bytes).get('10.1.2.3')).toEqual({
      a: [1, 2.5, true, false],
      m: { s: long },
      f: 1.5,
    });
  });
});
