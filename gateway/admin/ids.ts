/**
 * Issue 13 item 10: ids in the path are checked before any store call. An id is what the store issues (short
 * ASCII: letters, digits, "_" and "-"); anything else, including undecodable escapes (`%ZZ`) and control characters
 * (`acc_%00`), is refused 400 `invalid_parameter` naming the path parameter, instead of reaching the store.
 */
import type { RequestHandler } from 'express';
import { AdminProblem, sendProblem } from './problem';

const ID_CHARS = /^[A-Za-z0-9_-]+$/;
/** Store ids are far shorter; a longer well-formed id cannot exist (404 without a store call). */
const MAX_ID_LENGTH = 64;

/** Path segment → the name of the id parameter that follows it. */
export type IdSegments = Readonly<Record<string, string>>;

/** The admin API's ids: `/accounts/:id`, `/keys/:id`, `/accounts/:id/whitelist/:entryId`. */
export const ADMIN_ID_SEGMENTS: IdSegments = { accounts: 'id', keys: 'id', whitelist: 'entryId' };

/** A raw (still percent-encoded) path segment decoded, or null when it is not valid percent-encoded UTF-8. */
function decoded(raw: string): string | null {
  if (raw.indexOf('%') < 0) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** What is wrong with the ids of a raw path: the first malformed or over-long one, or null when all are fine. */
export function pathIdProblem(
  rawPath: string,
  segments: IdSegments,
): { field: string; malformed: boolean } | null {
  const parts = rawPath.split('/');
  for (let i = 0; i + 1 < parts.length; i++) {
    const field = Object.hasOwn(segments, parts[i] as string) ? segments[parts[i] as string] : undefined;
    const raw = parts[i + 1] as string;
    if (field === undefined || raw === '') continue;
    const id = decoded(raw);
    if (id === null || !ID_CHARS.test(id)) return { field, malformed: true };
    if (id.length > MAX_ID_LENGTH) return { field, malformed: false };
  }
  return null;
}

/** Admin middleware, before any route runs: 400 `invalid_parameter` for a malformed id, 404 for an over-long one. */
export function adminIds(): RequestHandler {
  return (req, res, next) => {
    const bad = pathIdProblem(req.path, ADMIN_ID_SEGMENTS);
    if (bad === null) return next();
    sendProblem(
      res,
      bad.malformed
        ? new AdminProblem('invalid_parameter', `${bad.field}: not a well-formed id`, bad.field)
        : new AdminProblem('not_found', 'no item with this id'),
    );
  };
}
