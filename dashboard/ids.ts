/** Issue 13 item 10: the dashboard's path ids (`/api/keys/:id`, `/whitelist/:id/delete`) checked before any store call. */
import type { RequestHandler } from 'express';
import { badPathId, type IdSegments } from '../gateway/admin/ids';
import { DashboardError } from './errors';

const DASHBOARD_ID_SEGMENTS: IdSegments = { keys: 'id', whitelist: 'id' };

/** 400 `invalid_parameter` naming the id for a malformed or undecodable id in the path, signed in or not. */
export function dashboardIds(): RequestHandler {
  return (req, _res, next) => {
    const field = badPathId(req.path, DASHBOARD_ID_SEGMENTS);
    next(
      field === null
        ? undefined
        : new DashboardError('invalid_parameter', 'That is not a well-formed id', field),
    );
  };
}
