/** Admin HTTP plumbing: bearer auth, JSON bodies, 405s, request logs and the one error renderer. */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type pino from 'pino';
import { requestIdOfResponse } from '../net/request-id-middleware';
import { StoreConflict } from '../store/types';
import { isStoreUnavailable } from '../store/faults';
import { AdminProblem, fromStoreConflict, sendProblem, storeUnavailable } from './problem';

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Require `Authorization: Bearer <token>`, compared in constant time (hashing first evens the lengths). */
export function bearerAuth(token: string): RequestHandler {
  const expected = sha256(token);
  return (req, res, next) => {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    if (m?.[1] !== undefined && timingSafeEqual(sha256(m[1]), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer realm="geogate-admin"');
    sendProblem(res, new AdminProblem('unauthorized', 'a valid admin bearer token is required'));
  };
}

/** Whether a request announces a body. */
function hasBody(req: express.Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Bodies must be application/json (415 otherwise); a request without a body reads as `{}`. */
export function jsonBody(): RequestHandler[] {
  const contentType: RequestHandler = (req, res, next) => {
    if (!hasBody(req) || req.is('application/json')) return next();
    sendProblem(res, new AdminProblem('unsupported_media_type', 'request bodies must be application/json'));
  };
  return [contentType, express.json({ limit: '16kb', strict: false, type: 'application/json' })];
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Register handlers for one path; other methods answer 405 with `Allow`. */
export function route(router: Router, path: string, handlers: Partial<Record<Method, RequestHandler>>): void {
  const r = router.route(path);
  const allow = Object.keys(handlers).map((m) => m.toUpperCase());
  for (const [method, handler] of Object.entries(handlers) as [Method, RequestHandler][]) r[method](handler);
  r.all((req, res) => {
    res.setHeader('Allow', allow.join(', '));
    sendProblem(
      res,
      new AdminProblem('method_not_allowed', `${req.method} is not allowed here; use ${allow.join(', ')}`),
    );
  });
}

/** Log each request by its route pattern (never the raw URL, headers or body: no key or token can leak). */
export function requestLog(logger: pino.Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const routePath = (req.route as { path?: string } | undefined)?.path;
      logger.info(
        {
          method: req.method,
          route: routePath === undefined ? 'unmatched' : `${req.baseUrl}${routePath}`,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - start) / 1e6,
          requestId: requestIdOfResponse(res),
        },
        'admin request',
      );
    });
    next();
  };
}

/** The one error renderer: problems as they are, StoreConflicts mapped, body-parser errors, store faults 503, else 500. */
export function errorHandler(logger: pino.Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof AdminProblem) return sendProblem(res, err);
    if (err instanceof StoreConflict) return sendProblem(res, fromStoreConflict(err));
    // A parameter the router could not decode (adminIds refuses these first; this is the backstop).
    if (err instanceof URIError)
      return sendProblem(res, new AdminProblem('invalid_parameter', 'path: not a well-formed id', 'path'));
    const type = (err as { type?: unknown } | null)?.type;
    if (type === 'entity.parse.failed')
      return sendProblem(res, new AdminProblem('invalid_parameter', 'body: malformed JSON', 'body'));
    if (type === 'entity.too.large')
      return sendProblem(res, new AdminProblem('payload_too_large', 'bodies are limited to 16 KiB'));
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return sendProblem(res, new AdminProblem('unsupported_media_type', 'bodies must be UTF-8 JSON'));
    }
    if (isStoreUnavailable(err)) {
      // A fault, not a bug: one warning line without a stack (the message names the database, never a key).
      logger.warn(
        {
          err: { name: (err as Error).name, message: (err as Error).message },
          requestId: requestIdOfResponse(res),
        },
        'admin: store unavailable',
      );
      if (!res.headersSent) sendProblem(res, storeUnavailable());
      return;
    }
    // Log only the error's name and stack: messages of store faults never carry keys (only hashes are passed in).
    logger.error(
      {
        err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
        requestId: requestIdOfResponse(res),
      },
      'admin error',
    );
    if (res.headersSent) return;
    sendProblem(res, new AdminProblem('internal', 'internal error; see the gateway log'));
  };
}
