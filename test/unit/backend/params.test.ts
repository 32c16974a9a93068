import { coordinate, ipv4, single } from '../../../backend/http/params';
import { parseIPv4 } from '../../../backend/ipv4';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('query validation (400 invalid_parameter, parameter named)', () => {
  it.each([
    ['missing', ''],
    ['empty', 'lat='],
    ['repeated', 'lat=1&lat=2'],
    ['hex', 'lat=0x10'],
    ['exponent', 'lat=1e3'],
    ['Infinity', 'lat=Infinity'],
    ['NaN', 'lat=NaN'],
    ['leading space', 'lat=%201'],
    ['plus decoded as space', 'lat=+1'],
    ['explicit plus sign', 'lat=%2B1'],
    ['comma decimal', 'lat=1,5'],
    ['bare fraction', 'lat=.5'],
    ['trailing dot', 'lat=5.'],
    ['too many integer digits', 'lat=0001'],
    ['out of range high', 'lat=90.0001'],
    ['out of range low', 'lat=-91'],
    ['garbage', 'lat=abc'],
  ])('rejects lat %s', (_name, query) => {
    const r = coordinate(q(query), 'lat', 90);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'lat' });
  });

  it.each([
    ['lat=48.8584', 48.8584],
    ['lat=-90', -90],
    ['lat=90.000', 90],
    ['lat=-0', 0],
    ['lat=0.12345678901234567890', 0.12345678901234568],
  ])('accepts %s', (query, value) => {
    expect(coordinate(q(query), 'lat', 90)).toEqual({ ok: true, value });
  });

  it('accepts the full longitude range and nothing beyond', () => {
    expect(coordinate(q('lon=-180'), 'lon', 180)).toEqual({ ok: true, value: -180 });
    expect(coordinate(q('lon=180'), 'lon', 180)).toEqual({ ok: true, value: 180 });
    expect(coordinate(q('lon=180.0000001'), 'lon', 180).ok).toBe(false);
  });

  it('names the problem precisely', () => {
    const r = single(q('ip=1&ip=2'), 'ip');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem.detail).toContain('once');
  });
});

describe('strict IPv4 (dotted quad, no leading zeros)', () => {
  it.each([
    ['8.8.8.8', 134744072],
    ['0.0.0.0', 0],
    ['255.255.255.255', 4294967295],
    ['81.2.69.142', 1359103374],
  ])('parses %s', (text, value) => {
    expect(parseIPv4(text)).toBe(value);
  });

  it.each([
    '81.2.69',
    '8.8.8',
    '8.8.8.8.8',
    '256.1.1.1',
    '08.8.8.8',
    '8.8.8.010',
    '8.8.8.',
    '.8.8.8',
    '::1',
    '::ffff:8.8.8.8',
    '2001:db8::1',
    '0x8.8.8.8',
    '134744072',
    ' 8.8.8.8',
    '8.8.8.8 ',
    '+8.8.8.8',
    '-1.8.8.8',
    '8.8.8.8/24',
    'a.b.c.d',
    '',
    '1.1.1.1111',
  ])('rejects %j', (text) => {
    expect(parseIPv4(text)).toBeNull();
    const r = ipv4(q(`ip=${encodeURIComponent(text)}`), 'ip');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatchObject({ status: 400, code: 'invalid_parameter', parameter: 'ip' });
  });
});
