/**
 * A host's requests served inside an application the operator already runs: a Node/Express/Connect middleware and a
 * Fastify plugin over the request path's one handler (gateway/lib/request-path.ts). Each is built once per host, so a
 * request costs the handler's call and nothing else: no host lookup, no wrapper object, no extra promise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CompiledHost } from '../config/compile';
import type { HostHandler } from '../http/pipeline';
import { announcesBody } from '../http/request';

/**
 * A Node/Express/Connect middleware, also a plain `http.createServer` listener; `next` is called only with an error
 * (every request is answered here).
 */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** The part of a Fastify instance the plugin uses (structural: the package does not depend on fastify). */
export interface FastifyInstanceLike {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    parser: (request: unknown, payload: unknown, done: (err: Error | null, body?: unknown) => void) => void,
  ): void;
  route(options: {
    method: string[];
    url: string;
    handler: (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => void;
  }): unknown;
}

/** The part of a Fastify reply the plugin uses. */
export interface FastifyReplyLike {
  readonly raw: ServerResponse;
  hijack(): unknown;
}

/** A Fastify plugin: register it with a prefix (`app.register(gate.fastify({ host }), { prefix: '/geo' })`). */
export type FastifyPlugin = (instance: FastifyInstanceLike, options: unknown) => Promise<void>;

/** A mount used where the request's body has already been read (a body parser ran first). */
export class MountOrderError extends Error {
  override readonly name = 'MountOrderError';
}

const BODY_READ =
  'geogate: the request body was already read by another middleware (a body parser); mount geogate before it';

/** Answer what the handler could not (a broken adapter): a bare 500 after logging; the pipeline never rejects else. */
function lastResort(logger: Logger, res: ServerResponse, err: unknown): void {
  logger.error({ err }, 'request handler failed');
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
  res.end('internal error\n');
}

/** The middleware serving `host`'s requests at the mount point (Express and Connect strip it from `req.url`). */
export function middlewareFor(handle: HostHandler, host: CompiledHost, logger: Logger): Middleware {
  return (req, res, next) => {
    // A body parser mounted before us consumed the stream: reading it would never end, so say so at once.
    if (req.readableEnded && announcesBody(req)) {
      const err = new MountOrderError(BODY_READ);
      if (next) return next(err);
      return lastResort(logger, res, err);
    }
    handle(host, req, res).catch((err: unknown) => (next ? next(err) : lastResort(logger, res, err)));
  };
}

/** `url` without its first `cut` characters (the prefix), still starting with "/". */
function withoutPrefix(url: string, cut: number): string {
  const rest = url.slice(cut);
  return rest.charCodeAt(0) === 47 /* / */ ? rest : `/${rest}`;
}

/** Every method a host answers (the adapters refuse the others in the host's shape). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The Fastify plugin serving `host`'s requests under the prefix it is registered with. Inside its own context it
 * leaves the body unread (no content-type parser consumes it: the pipeline reads a form body itself, D2a) and hands
 * the raw request and response to the handler, the prefix cut from the URL as Express does for a mount.
 */
export function fastifyPluginFor(handle: HostHandler, host: CompiledHost, logger: Logger): FastifyPlugin {
  const plugin = async (instance: FastifyInstanceLike): Promise<void> => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const cut = instance.prefix.length;
    const handler = (request: { raw: IncomingMessage }, reply: FastifyReplyLike): void => {
      reply.hijack();
      const req = request.raw;
      const res = reply.raw;
      if (cut > 0 && req.url !== undefined) req.url = withoutPrefix(req.url, cut);
      handle(host, req, res).catch((err: unknown) => lastResort(logger, res, err));
    };
    instance.route({ method: METHODS, url: '/', handler });
    instance.route({ method: METHODS, url: '/*', handler });
  };
  return plugin;
}
