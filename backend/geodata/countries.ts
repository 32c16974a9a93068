/** country-coder access: territory-level ISO codes (PR, HK, ...), English names and border polygons. */
import * as countryCoder from '@rapideditor/country-coder';
import type { MultiPolygonCoords } from './country-grid';

const TERRITORY = { level: 'territory' } as const;
const COUNTRY = { level: 'country' } as const;

const official = new Map<string, boolean>();

function isOfficial(code: string): boolean {
  let yes = official.get(code);
  if (yes === undefined) {
    yes = countryCoder.feature(code)?.properties.isoStatus === 'official';
    official.set(code, yes);
  }
  return yes;
}

/**
 * ISO 3166-1 alpha-2 code of a point at territory level (PR, HK, ...), or null over open sea. A territory whose
 * code is not officially assigned (EA, Ceuta and Melilla: "exceptionally reserved") answers its country (ES).
 */
export function countryCodeAt(lon: number, lat: number): string | null {
  const code = countryCoder.iso1A2Code([lon, lat], TERRITORY);
  if (code === null || isOfficial(code)) return code;
  return countryCoder.iso1A2Code([lon, lat], COUNTRY) ?? code;
}

/** English name of a country code (country-coder nameEn), or null when unknown. */
export function countryName(code: string): string | null {
  return countryCoder.feature(code)?.properties.nameEn ?? null;
}

/** The MultiPolygon coordinates of every border feature that has a geometry. */
export function borderPolygons(): MultiPolygonCoords[] {
  const out: MultiPolygonCoords[] = [];
  for (const f of countryCoder.borders.features) {
    const geometry = f.geometry as { type?: string; coordinates?: unknown } | null;
    if (geometry?.type === 'MultiPolygon') out.push(geometry.coordinates as MultiPolygonCoords);
    else if (geometry?.type === 'Polygon') out.push([geometry.coordinates as MultiPolygonCoords[number]]);
  }
  return out;
}

/** Every ISO alpha-2 code that country-coder knows. */
export function allCountryCodes(): string[] {
  const codes = new Set<string>();
  for (const f of countryCoder.borders.features) if (f.properties.iso1A2) codes.add(f.properties.iso1A2);
  return [...codes].sort();
}
