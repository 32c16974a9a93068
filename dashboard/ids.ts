/**
 * The dashboard's path ids (`/api/keys/:id`, `/whitelist/:id/delete`) checked before any store call, and every
 * segment of every path checked to decode (`/receipts/%ZZ`, `/notifications/webhooks/%ZZ/delete`): 400, never 500.
 */
import type { RequestHandler } from 'express';
import { pathIdProblem, undecodableSegment, type IdSegments } from '../gateway/accounts/ids';
import { DashboardError } from './errors';

const DASHBOARD_ID_SEGMENTS: IdSegments = { keys: 'id', whitelist: 'id', receipts: 'number', webhooks: 'id' };
/** The segments whose ids are store ids (receipt numbers are not: `2026-000001.pdf`). */
const STORE_ID_SEGMENTS: IdSegments = { keys: 'id', whitelist: 'id' };

/** 400 `invalid_parameter` naming the id when it is malformed or undecodable, signed in or not; 404 when over-long. */
export function dashboardIds(): RequestHandler {
  return (req, _res, next) => {
    const field = undecodableSegment(req.path, DASHBOARD_ID_SEGMENTS);
    if (field !== null)
      return next(new DashboardError('invalid_parameter', 'That is not a well-formed id', field));
    const bad = pathIdProblem(req.path, STORE_ID_SEGMENTS);
    if (bad === null) return next();
    next(
      bad.malformed
        ? new DashboardError('invalid_parameter', 'That is not a well-formed id', bad.field)
        : new DashboardError('not_found', 'No such item on your account'),
    );
  };
}
