/** Country facts the providers' formats need beyond the backend record (ISO alpha-3, continent), from country-coder. */
import { featuresContaining, iso1A2Code, iso1A3Code, isIn } from '@rapideditor/country-coder';

/** ISO 3166-1 alpha-3 for an alpha-2 code, or null. */
export function alpha3(countryCode: string | null): string | null {
  return countryCode === null ? null : (iso1A3Code(countryCode) ?? null);
}

/** ISO 3166-1 alpha-2 for an alpha-3 (or alpha-2) code, or null when it names no country. */
export function alpha2Of(code: string): string | null {
  return /^[A-Za-z]{2,3}$/.test(code) ? (iso1A2Code(code.toUpperCase()) ?? null) : null;
}

/** A continent as two-letter code and English name. */
export interface Continent {
  code: string;
  name: string;
}

/** UN M49 groups for continents, checked in this order (the Americas are split into North and South). */
const CONTINENTS: readonly [string, Continent][] = [
  ['150', { code: 'EU', name: 'Europe' }],
  ['002', { code: 'AF', name: 'Africa' }],
  ['142', { code: 'AS', name: 'Asia' }],
  ['009', { code: 'OC', name: 'Oceania' }],
  ['010', { code: 'AN', name: 'Antarctica' }],
  ['005', { code: 'SA', name: 'South America' }],
  ['003', { code: 'NA', name: 'North America' }],
];

function continentOfFeature(id: string): Continent | null {
  for (const [group, continent] of CONTINENTS) if (isIn(id, group)) return continent;
  return null;
}

/**
 * The continent of a country; for countries with territories on several continents (FR, US, GB, ...) the point
 * decides (the metropolitan feature containing it).
 */
export function continentOf(
  countryCode: string | null,
  lat: number | null,
  lon: number | null,
): Continent | null {
  if (countryCode === null) return null;
  const direct = continentOfFeature(countryCode);
  if (direct !== null || lat === null || lon === null) return direct;
  for (const feature of featuresContaining([lon, lat])) {
    const found = continentOfFeature(feature.properties.id);
    if (found !== null) return found;
  }
  return null;
}
