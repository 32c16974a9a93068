/** Finding the credential of a request in every position the rule set accepts (spec 5.2, D2, D2a, D12). */
import type { AdapterRequest, FoundCredential } from '../../adapters/types';
import { canonicalKey } from '../core/keys';
import { parseQuery } from '../core/query';
import { ALL_CREDENTIAL_POSITIONS, type CredentialPosition } from './ruleset';

/** What the request carries: no key, one key (maybe seen in several positions), or a refusal. */
export type CredentialResult =
  | { kind: 'none' }
  | { kind: 'key'; value: string; positions: string[] }
  | { kind: 'conflict'; positions: string[] }
  | { kind: 'malformed'; position: string };

/** A credential position that could not be decoded (a Basic header that is not base64 "user:" form). */
interface Malformed {
  malformed: string;
}

/** The `Authorization` header split into scheme and token, or null. */
function authorization(headers: AdapterRequest['headers']): { scheme: string; token: string } | null {
  const h = headers['authorization'];
  if (h === undefined) return null;
  const m = /^\s*([A-Za-z]+)\s+(\S.*?)\s*$/.exec(h);
  return m ? { scheme: (m[1] as string).toLowerCase(), token: m[2] as string } : null;
}

/** Basic credentials with the key as user name and an empty password; anything else is malformed. */
function basicKey(token: string): string | Malformed {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return { malformed: 'header:authorization' };
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.slice(colon + 1) !== '') return { malformed: 'header:authorization' };
  return decoded.slice(0, colon);
}

/** Non-empty values of one header (empty values are treated as absent). */
function headerValue(headers: AdapterRequest['headers'], name: string): string | null {
  const v = headers[name]?.trim();
  return v === undefined || v === '' ? null : v;
}

/** Credentials found in one accepted position. */
function fromPosition(
  position: CredentialPosition,
  req: AdapterRequest,
  form: Map<string, string[]> | null,
): (FoundCredential | Malformed)[] {
  switch (position) {
    case 'x-api-key':
    case 'x-goog-api-key': {
      const v = headerValue(req.headers, position);
      return v === null ? [] : [{ position: `header:${position}`, value: v }];
    }
    case 'bearer': {
      const auth = authorization(req.headers);
      return auth?.scheme === 'bearer' ? [{ position: 'header:authorization', value: auth.token }] : [];
    }
    case 'basic': {
      const auth = authorization(req.headers);
      if (auth?.scheme !== 'basic') return [];
      const key = basicKey(auth.token);
      return typeof key === 'string' ? [{ position: 'header:authorization', value: key }] : [key];
    }
    case 'query-key':
      // Most queries carry no key: skip decoding them unless "key" appears, plainly or percent-encoded.
      if (!req.query.includes('key') && !req.query.includes('%')) return [];
      return valuesOf(parseQuery(req.query), 'key').map((value) => ({ position: 'query:key', value }));
    case 'form-key':
      return valuesOf(form, 'key').map((value) => ({ position: 'form:key', value }));
  }
}

/** Non-empty values of a parameter. */
function valuesOf(params: Map<string, string[]> | null, name: string): string[] {
  return (params?.get(name) ?? []).filter((v) => v !== '');
}

/**
 * All credentials of a request: the rule set's positions plus the adapter's provider positions. Different values
 * conflict (D12: 400 conflicting_credentials); the same key in several positions is one credential. A position
 * that cannot be decoded is malformed (401 invalid_key, D9 "credential syntax").
 */
export function findCredential(
  req: AdapterRequest,
  positions: readonly CredentialPosition[],
  providerCredentials: FoundCredential[],
  form: Map<string, string[]> | null,
): CredentialResult {
  const found: FoundCredential[] = [];
  for (const position of positions) {
    for (const c of fromPosition(position, req, form)) {
      if ('malformed' in c) return { kind: 'malformed', position: c.malformed };
      found.push(c);
    }
  }
  found.push(...providerCredentials.filter((c) => c.value !== ''));
  if (found.length === 0) return { kind: 'none' };
  // D28: the presentations of one key (gk_…, AIza…) are the same key, not a conflict (checked only when several).
  const values = found.length === 1 ? null : new Set(found.map((c) => canonicalKey(c.value) ?? c.value));
  const positionsSeen = [...new Set(found.map((c) => c.position))];
  if (values !== null && values.size > 1) return { kind: 'conflict', positions: positionsSeen };
  return { kind: 'key', value: found[0]?.value as string, positions: positionsSeen };
}

/** Whether a parameter has a non-empty value (no allocation: this runs for every request without a credential). */
function hasValue(params: Map<string, string[]> | null, name: string): boolean {
  const values = params?.get(name);
  if (values === undefined) return false;
  for (const v of values) if (v !== '') return true;
  return false;
}

/** Whether a request carries something in one position (a key sent there, well-formed or not). */
function carriesKey(
  position: CredentialPosition,
  req: AdapterRequest,
  form: Map<string, string[]> | null,
): boolean {
  switch (position) {
    case 'x-api-key':
    case 'x-goog-api-key':
      return headerValue(req.headers, position) !== null;
    case 'bearer':
    case 'basic':
      return authorization(req.headers)?.scheme === position;
    case 'query-key':
      return (req.query.includes('key') || req.query.includes('%')) && hasValue(parseQuery(req.query), 'key');
    case 'form-key':
      return hasValue(form, 'key');
  }
}

/**
 * The first rule-set position the deployment does NOT accept that carries a key, or null. Such a key is no
 * credential, and the request must not be served as if it had none (spec 5.6 item 4, issue 13 item 12).
 */
export function unacceptedKeyPosition(
  req: AdapterRequest,
  accepted: readonly CredentialPosition[],
  form: Map<string, string[]> | null,
): CredentialPosition | null {
  for (const position of ALL_CREDENTIAL_POSITIONS) {
    if (!accepted.includes(position) && carriesKey(position, req, form)) return position;
  }
  return null;
}

const POSITION_NAMES: Readonly<Record<CredentialPosition, string>> = {
  'x-api-key': 'the X-API-Key header',
  bearer: 'Authorization: Bearer',
  basic: 'HTTP Basic authentication',
  'query-key': 'the "key" query parameter',
  'x-goog-api-key': 'the X-Goog-Api-Key header',
  'form-key': 'the "key" field of a form body',
};

/** A position in words, as refusals name it ("the X-API-Key header"). */
export function positionName(position: CredentialPosition): string {
  return POSITION_NAMES[position];
}

/** Positions in words: "A", "A or B", "A, B or C". */
export function positionNames(positions: readonly CredentialPosition[]): string {
  const names = positions.map(positionName);
  const last = names.pop();
  return names.length === 0 ? (last ?? '') : `${names.join(', ')} or ${last ?? ''}`;
}
