/** Reading the first feature of a GeoJSON FeatureCollection answer (Photon, Pelias). */
import { coordinate, isObject, parseJson, type Json } from './common';

/** The first feature's properties and point; 'empty' when there is none; a string says why it cannot be read. */
export type FirstFeature = { props: Json; lat: number; lon: number; collection: Json } | 'empty' | string;

/** The first feature of a FeatureCollection body. */
export function firstFeature(body: Buffer): FirstFeature {
  const j = parseJson(body);
  if (!isObject(j)) return 'not a JSON object';
  const features = j['features'];
  if (!Array.isArray(features)) return 'no features list';
  if (features.length === 0) return 'empty';
  const f: unknown = features[0];
  if (!isObject(f) || !isObject(f['properties']) || !isObject(f['geometry']))
    return 'a feature without properties';
  const c = f['geometry']['coordinates'];
  const lon = Array.isArray(c) ? coordinate(c[0], 180) : null;
  const lat = Array.isArray(c) ? coordinate(c[1], 90) : null;
  if (lat === null || lon === null) return 'a feature without a point';
  return { props: f['properties'], lat, lon, collection: j };
}

/** One feature of a collection: its properties, point and `bbox` member (when it has one). */
export interface Feature {
  props: Json;
  lat: number;
  lon: number;
  feature: Json;
}

/** Every feature of a FeatureCollection body (an empty list is an answer), or why it cannot be read. */
export function allFeatures(body: Buffer): { features: Feature[]; collection: Json } | string {
  const j = parseJson(body);
  if (!isObject(j)) return 'not a JSON object';
  const list = j['features'];
  if (!Array.isArray(list)) return 'no features list';
  const features: Feature[] = [];
  for (const f of list as unknown[]) {
    if (!isObject(f) || !isObject(f['properties']) || !isObject(f['geometry']))
      return 'a feature without properties';
    const c = f['geometry']['coordinates'];
    const lon = Array.isArray(c) ? coordinate(c[0], 180) : null;
    const lat = Array.isArray(c) ? coordinate(c[1], 90) : null;
    if (lat === null || lon === null) return 'a feature without a point';
    features.push({ props: f['properties'], lat, lon, feature: f });
  }
  return { features, collection: j };
}
