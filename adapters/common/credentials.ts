/** Reading credentials from a provider's own positions (query parameters, Authorization: Bearer). */
import type { AdapterRequest, FoundCredential } from '../types';
import { parseQuery } from './query';

/** Every value of the named query parameters, as credentials named "query:<name>" (repeats are kept for D12). */
export function queryCredentials(req: AdapterRequest, names: readonly string[]): FoundCredential[] {
  const q = parseQuery(req.query);
  const found: FoundCredential[] = [];
  for (const name of names) {
    for (const value of q.get(name) ?? []) {
      if (value !== '') found.push({ position: `query:${name}`, value });
    }
  }
  return found;
}

/** The token of an `Authorization: Bearer <token>` header, as credential "header:authorization". */
export function bearerCredential(req: AdapterRequest): FoundCredential[] {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers['authorization'] ?? '');
  return match ? [{ position: 'header:authorization', value: match[1] as string }] : [];
}
