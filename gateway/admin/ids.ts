/**
 * Issue 13 item 10: ids in the path are checked before any store call. An id is what the store issues (short
 * ASCII: letters, digits, "_" and "-"); anything else, including undecodable escapes (`%ZZ`) and control characters
 * (`acc_%00`), is refused 400 `invalid_parameter` naming the path parameter, instead of reaching the store.
 */
import type { RequestHandler } from 'express';
import { AdminProblem, sendProblem } from './problem';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Path segment → the name of the id parameter that follows it. */
export type IdSegments = Readonly<Record<string, string>>;

/** The admin API's ids: `/accounts/:id`, `/keys/:id`, `/accounts/:id/whitelist/:entryId`. */
export const ADMIN_ID_SEGMENTS: IdSegments = { accounts: 'id', keys: 'id', whitelist: 'entryId' };

/** Whether a raw (still percent-encoded) path segment decodes to a well-formed id. */
export function isIdSegment(raw: string): boolean {
  if (ID.test(raw)) return true;
  if (raw.indexOf('%') < 0) return false;
  try {
    return ID.test(decodeURIComponent(raw));
  } catch {
    return false;
  }
}

/** The name of the first malformed id in a raw path (`/accounts/%ZZ/keys` → "id"), or null when all are well formed. */
export function badPathId(rawPath: string, segments: IdSegments): string | null {
  const parts = rawPath.split('/');
  for (let i = 0; i + 1 < parts.length; i++) {
    const field = Object.hasOwn(segments, parts[i] as string) ? segments[parts[i] as string] : undefined;
    const raw = parts[i + 1] as string;
    if (field !== undefined && raw !== '' && !isIdSegment(raw)) return field;
  }
  return null;
}

/** Admin middleware: 400 `invalid_parameter` for a malformed id in the path, before any route runs. */
export function adminIds(): RequestHandler {
  return (req, res, next) => {
    const field = badPathId(req.path, ADMIN_ID_SEGMENTS);
    if (field === null) return next();
    sendProblem(res, new AdminProblem('invalid_parameter', `${field}: not a well-formed id`, field));
  };
}
