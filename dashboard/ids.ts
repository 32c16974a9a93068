/** Issue 13 item 10: the dashboard's path ids (`/api/keys/:id`, `/whitelist/:id/delete`) checked before any store call. */
import type { RequestHandler } from 'express';
import { pathIdProblem, type IdSegments } from '../gateway/accounts/ids';
import { DashboardError } from './errors';

const DASHBOARD_ID_SEGMENTS: IdSegments = { keys: 'id', whitelist: 'id' };

/** 400 `invalid_parameter` naming the id when it is malformed or undecodable, signed in or not; 404 when over-long. */
export function dashboardIds(): RequestHandler {
  return (req, _res, next) => {
    const bad = pathIdProblem(req.path, DASHBOARD_ID_SEGMENTS);
    if (bad === null) return next();
    next(
      bad.malformed
        ? new DashboardError('invalid_parameter', 'That is not a well-formed id', bad.field)
        : new DashboardError('not_found', 'No such item on your account'),
    );
  };
}
