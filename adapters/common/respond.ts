/** Building adapter responses: JSON and XML bodies with their content types. */
import type { AdapterResponse } from '../types';

/** A JSON response with the given status. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): AdapterResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** An XML response with the given status (body must already be a full document). */
export function xml(status: number, body: string): AdapterResponse {
  return { status, headers: { 'content-type': 'text/xml; charset=utf-8' }, body };
}

/** Escapes text for XML element content and attribute values. */
export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
