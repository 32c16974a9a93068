/** The record-shape checks that decide "renderable" before an answer is charged (issue 13 item 11). */
import { isIpRecord, isReverseRecord, parseJsonObject } from '../../../../gateway/backends/record-shape';

const reverse = {
  query: { lat: 48.85, lon: 2.29 },
  countryCode: 'FR',
  country: 'France',
  region: 'Île-de-France',
  regionCode: '11',
  county: null,
  locality: 'Paris',
  postcode: null,
  distanceKm: 1.2,
  displayName: 'Paris, France',
  lat: 48.86,
  lon: 2.35,
  timezone: 'Europe/Paris',
  attribution: 'x',
};
const ip = {
  ip: '8.8.8.8',
  countryCode: 'US',
  country: 'United States',
  region: null,
  city: null,
  lat: null,
  lon: null,
  timezone: null,
  asn: 15169,
  org: 'Google',
  attribution: 'x',
};

describe('parseJsonObject', () => {
  test.each([['not json'], ['[1]'], ['null'], ['"text"'], ['42'], ['']])('%j is no object', (text) => {
    expect(parseJsonObject(Buffer.from(text))).toBeNull();
  });
  test('an object is returned', () => {
    expect(parseJsonObject(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
  });
});

describe('isReverseRecord', () => {
  test('the backend record shape (with nulls) passes', () => expect(isReverseRecord(reverse)).toBe(true));
  test.each([
    ['no query', { ...reverse, query: undefined }],
    ['query without numbers', { ...reverse, query: { lat: '1', lon: 2 } }],
    ['displayName missing', { ...reverse, displayName: undefined }],
    ['displayName a number', { ...reverse, displayName: 5 }],
    ['attribution missing', { ...reverse, attribution: undefined }],
    ['country a number', { ...reverse, country: 3 }],
    ['lat a string', { ...reverse, lat: '48.8' }],
    ['timezone an object', { ...reverse, timezone: {} }],
    ['an ip record', ip],
  ])('%s fails', (_n, value) => {
    expect(isReverseRecord(value as Record<string, unknown>)).toBe(false);
  });
});

describe('isIpRecord', () => {
  test('the backend record shape (with nulls) passes', () => expect(isIpRecord(ip)).toBe(true));
  test.each([
    ['ip missing', { ...ip, ip: undefined }],
    ['asn a string', { ...ip, asn: 'AS15169' }],
    ['attribution missing', { ...ip, attribution: undefined }],
    ['a reverse record', reverse],
  ])('%s fails', (_n, value) => {
    expect(isIpRecord(value as Record<string, unknown>)).toBe(false);
  });
});
