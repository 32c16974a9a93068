/** Reading an incoming request into the adapter's view: path, query, lower-case headers, and a form body (D2a). */
import type { IncomingMessage } from 'node:http';
import type { AdapterRequest } from '../../adapters/types';
import { parseQuery, withoutParams } from '../core/query';

const MAX_BODY = 16 * 1024;

/** Headers as a lower-case record of single strings (repeated headers joined with ", "). */
export function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const headers = req.headers;
  // for-in over Node's own header object (no inherited keys): no entries array per request.
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const EMPTY = Buffer.alloc(0);

/** Whether the request announces a body (RFC 9112 6.3: Content-Length other than 0, or Transfer-Encoding). */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Read the whole body (bounded); 'too_large' when over the limit. A request without a body resolves at once: its
 * stream is left unread (the proxy pipes it, or the server discards it when the answer is sent).
 */
export function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  if (!announcesBody(req)) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Whether a request carries an application/x-www-form-urlencoded body (D2a), whatever its method: a PUT, PATCH or
 * DELETE form is read like a POST one, so its credential parameters identify the caller and never reach a backend.
 */
export function isFormBody(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && /^\s*application\/x-www-form-urlencoded/i.test(type);
}

/**
 * The adapter's view of a request. A form body's fields other than credentials are appended to the query, so a POST
 * is parsed like the equivalent GET (D2a); the credential fields are read by the credential finder from `form`.
 */
export function adapterRequest(
  method: string,
  path: string,
  query: string,
  headers: Record<string, string | undefined>,
  formText: string | null,
  credentialParams: readonly string[],
): AdapterRequest {
  const formQuery = formText === null ? '' : withoutParams(formText, ['key', ...credentialParams]);
  const merged = [query, formQuery].filter((s) => s !== '').join('&');
  return { method, path, query: merged, headers };
}

/** The form fields of a body, or null when malformed. */
export function parseForm(text: string): Map<string, string[]> | null {
  return parseQuery(text);
}
