/**
 * Issue 13 item 10: ids in the path are checked before any store call. An id is what the store issues (short
 * ASCII: letters, digits, "_" and "-"); anything else, including undecodable escapes (`%ZZ`) and control characters
 * (`acc_%00`), is refused 400 `invalid_parameter` naming the path parameter, instead of reaching the store.
 */
import type { RequestHandler } from 'express';
import { pathIdProblem, undecodableSegment, type IdSegments } from '../accounts/ids';
import { AdminProblem, sendProblem } from './problem';

/** The admin API's ids: `/accounts/:id`, `/keys/:id`, `/accounts/:id/whitelist/:entryId`. */
export const ADMIN_ID_SEGMENTS: IdSegments = { accounts: 'id', keys: 'id', whitelist: 'entryId' };

/** Admin middleware, before any route runs: 400 `invalid_parameter` for a malformed id, 404 for an over-long one. */
export function adminIds(): RequestHandler {
  return (req, res, next) => {
    // Any segment that does not decode, on any route (a later route's id would fail in the router: 500).
    const field = undecodableSegment(req.path, ADMIN_ID_SEGMENTS);
    if (field !== null)
      return sendProblem(res, new AdminProblem('invalid_parameter', `${field}: not a well-formed id`, field));
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
