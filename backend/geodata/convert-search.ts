/**
 * Build-time search index: every place's own name, its cities500 name and ASCII name, and its cities500 alternate
 * names, normalised once (backend/search/normalise.ts), deduplicated per place, and laid out as sorted unique keys
 * (UTF-8, byte order) with per-key posting lists ordered best first (own name, then population).
 */
import { normaliseName } from '../search/normalise';
import { OWN_NAME, populationScore } from '../search/score';
import { joinGazetteer, rowKeys, type GazetteerRow, type PlaceKey, type RowKeys } from './gazetteer';
import type { SearchTables } from './model';

/** Set on a posting whose key is an alternate name (bits 0-30: place index). */
export const ALTERNATE_BIT = 0x80000000;
/** Keys per block of SearchTables.blockMax. */
export const KEY_BLOCK = 64;

/** 32-bit words per block in SearchTables.blockCountries (one bit per country index). */
export function countryWords(countryCount: number): number {
  return Math.max(1, Math.ceil(countryCount / 32));
}

/** The first two bytes of text[at..end) as one number 0..65535 (a missing second byte counts as 0). */
export function twoBytes(text: Uint8Array, at: number, end: number): number {
  return end - at >= 2
    ? ((text[at] as number) << 8) | (text[at + 1] as number)
    : ((text[at] ?? 0) as number) << 8;
}

/** The search tables and how many places were joined to a cities500 row. */
export interface ConvertedSearch {
  search: SearchTables;
  joined: number;
}

/**
 * Builds the search tables for places (in place order) from the cities500 rows; placeCountry is each place's
 * country index (PlaceTables.country), below countryCount.
 */
export function convertSearch(
  places: readonly PlaceKey[],
  gazetteer: readonly GazetteerRow[],
  placeCountry: Uint16Array,
  countryCount: number,
): ConvertedSearch {
  const keysOf = rowKeys(gazetteer);
  const join = joinGazetteer(places, gazetteer, keysOf);
  const population = new Uint32Array(places.length);
  const postingsOf = new Map<string, number[]>();
  let joined = 0;
  places.forEach((place, i) => {
    const r = join[i] as number;
    const row = r >= 0 ? (gazetteer[r] as GazetteerRow) : null;
    const keys = r >= 0 ? (keysOf[r] as RowKeys) : null;
    if (row) joined++;
    population[i] = row ? Math.min(row.population, 0xffffffff) : 0;
    const own = new Set<string>(keys?.own);
    const name = normaliseName(place.name);
    if (name !== '') own.add(name);
    for (const key of own) push(postingsOf, key, i);
    for (const key of keys?.alternate ?? [])
      if (!own.has(key)) push(postingsOf, key, (i | ALTERNATE_BIT) >>> 0);
  });
  return { search: layout(postingsOf, population, placeCountry, countryCount), joined };
}

function push(map: Map<string, number[]>, key: string, posting: number): void {
  const list = map.get(key);
  if (list) list.push(posting);
  else map.set(key, [posting]);
}

function layout(
  postingsOf: Map<string, number[]>,
  population: Uint32Array,
  placeCountry: Uint16Array,
  countryCount: number,
): SearchTables {
  // A "binary" string has one code unit per UTF-8 byte, so the default string order is the byte order of the keys.
  const unsorted = [...postingsOf].map(([key, list]) => ({ bytes: Buffer.from(key, 'utf8'), list }));
  const order = unsorted.map((k, i) => `${k.bytes.toString('latin1')}\u0000${i}`);
  order.sort();
  const keys = order.map(
    (o) => unsorted[Number(o.slice(o.lastIndexOf('\u0000') + 1))] as (typeof unsorted)[number],
  );
  const popScore = Float64Array.from(population, populationScore);
  const staticScore = (posting: number): number =>
    ((posting & ALTERNATE_BIT) === 0 ? OWN_NAME : 0) + (popScore[posting & ~ALTERNATE_BIT] as number);
  const m = keys.length;
  const keyOffsets = new Uint32Array(m + 1);
  const keyPostings = new Uint32Array(m + 1);
  let bytes = 0;
  let total = 0;
  keys.forEach((k, i) => {
    keyOffsets[i] = bytes;
    keyPostings[i] = total;
    bytes += k.bytes.length;
    total += k.list.length;
  });
  keyOffsets[m] = bytes;
  keyPostings[m] = total;
  const keyText = new Uint8Array(Buffer.concat(keys.map((k) => k.bytes)));
  const postings = new Uint32Array(total);
  keys.forEach((k, i) => {
    const list = k.list;
    if (list.length > 1)
      list.sort((a, b) => staticScore(b) - staticScore(a) || (a & ~ALTERNATE_BIT) - (b & ~ALTERNATE_BIT));
    postings.set(list, keyPostings[i] as number);
  });
  const blocks = Math.ceil(m / KEY_BLOCK);
  const blockMax = new Float64Array(blocks);
  const words = countryWords(countryCount);
  const blockCountries = new Uint32Array(blocks * words);
  const bucket = new Uint32Array(65537);
  let at = 0;
  for (let k = 0; k < m; k++) {
    const best = staticScore(postings[keyPostings[k] as number] as number);
    const b = Math.floor(k / KEY_BLOCK);
    if (best > (blockMax[b] as number)) blockMax[b] = best;
    for (let j = keyPostings[k] as number; j < (keyPostings[k + 1] as number); j++) {
      const c = placeCountry[(postings[j] as number) & ~ALTERNATE_BIT] as number;
      const w = b * words + (c >>> 5);
      blockCountries[w] = ((blockCountries[w] as number) | (1 << (c & 31))) >>> 0;
    }
    const first = twoBytes(keyText, keyOffsets[k] as number, keyOffsets[k + 1] as number);
    while (at <= first) bucket[at++] = k;
  }
  while (at <= 65536) bucket[at++] = m;
  return {
    keyText,
    keyOffsets,
    keyPostings,
    postings,
    population,
    placeScore: popScore,
    blockMax,
    blockCountries,
    bucket,
  };
}
