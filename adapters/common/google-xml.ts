/** Google Geocoding's XML output (`/maps/api/geocode/xml`): the JSON answer as a `<GeocodeResponse>` document. */
import { xmlEscape } from './respond';

/** The JSON answer the Google host builds (success or error). */
export interface GoogleBody {
  status: string;
  results: unknown[];
  error_message?: string;
  html_attributions?: string[];
}

/** One element per member; arrays repeat the element (Google writes `<type>` and `<address_component>` so). */
function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => element(name, v)).join('');
  if (typeof value === 'object') {
    const inner = Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => element(k, v))
      .join('');
    return `<${name}>${inner}</${name}>`;
  }
  return `<${name}>${xmlEscape(String(value))}</${name}>`;
}

/** Google's XML document: status, then each result (`address_components` becomes `address_component`). */
export function googleXml(body: GoogleBody): string {
  const results = body.results.map((r) => {
    const { address_components, types, ...rest } = r as Record<string, unknown>;
    return `<result>${element('type', types)}${Object.entries(rest)
      .filter(([k]) => k === 'formatted_address')
      .map(([k, v]) => element(k, v))
      .join('')}${element('address_component', address_components)}${Object.entries(rest)
      .filter(([k]) => k !== 'formatted_address')
      .map(([k, v]) => element(k, v))
      .join('')}</result>`;
  });
  const message = body.error_message === undefined ? '' : element('error_message', body.error_message);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<GeocodeResponse>${element('status', body.status)}` +
    `${results.join('')}${message}</GeocodeResponse>`
  );
}
