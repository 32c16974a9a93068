/** X-Request-Id for the express apps (admin API, dashboard): the same rules as the gateway's hosts. */
import type { RequestHandler, Response } from 'express';
import type { Cidr } from './address';
import { requestIdOf } from './request-id';

/** Set `res.locals.requestId` and the X-Request-Id answer header on every request. */
export function requestIdMiddleware(trustProxy: readonly Cidr[] = []): RequestHandler {
  return (req, res, next) => {
    const id = requestIdOf(req.socket, req.headers, trustProxy);
    res.locals['requestId'] = id;
    res.setHeader('x-request-id', id);
    next();
  };
}

/** The request id the middleware set ("" when it did not run). */
export function requestIdOfResponse(res: Response): string {
  const id: unknown = res.locals['requestId'];
  return typeof id === 'string' ? id : '';
}
