/** Reading a Nominatim-style reverse request (`lat`, `lon`, `format`, `zoom`, `addressdetails`), shared with LocationIQ. */
import { parseLatLon } from './coords';
import type { NominatimFormat, NominatimView } from './nominatim-format';
import { NOMINATIM_FORMATS } from './nominatim-format';
import { once, refuse } from './parse';
import type { Query } from './query';
import type { ParseResult } from '../types';

/** The parsed request: the point plus the rendering view. */
export type NominatimRequest = { lat: number; lon: number; view: NominatimView };

function isFormat(text: string): text is NominatimFormat {
  return (NOMINATIM_FORMATS as readonly string[]).includes(text);
}

/** Reads the request; `formats` limits the accepted formats and `defaultFormat` applies when none is given. */
export function readNominatimRequest(
  q: Query,
  formats: readonly NominatimFormat[],
  defaultFormat: NominatimFormat,
): NominatimRequest | ParseResult<never> {
  const values: Record<string, string | undefined> = {};
  for (const name of ['lat', 'lon', 'format', 'zoom', 'addressdetails']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    values[name] = read.value;
  }
  const point = parseLatLon(values['lat'], values['lon'], { lat: 'lat', lon: 'lon' });
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const format = values['format'] ?? defaultFormat;
  if (!isFormat(format) || !formats.includes(format)) {
    return refuse('invalid_parameter', 'format', `format must be one of: ${formats.join(', ')}`);
  }
  const zoomText = values['zoom'] ?? '18';
  if (!/^\d{1,2}$/.test(zoomText) || Number(zoomText) > 18) {
    return refuse('invalid_parameter', 'zoom', 'zoom must be an integer between 0 and 18');
  }
  const details = values['addressdetails'] ?? '1';
  if (details !== '0' && details !== '1')
    return refuse('invalid_parameter', 'addressdetails', 'addressdetails must be 0 or 1');
  const echo = `lat=${point.lat}&lon=${point.lon}&format=${format}&zoom=${zoomText}`;
  return {
    lat: point.lat,
    lon: point.lon,
    view: { format, zoom: Number(zoomText), addressdetails: details === '1', echo },
  };
}
