/**
 * Issue 13 item 9: limits of every listener against slow and idle clients (stalled headers, trickled bodies,
 * half-open connections), with safe defaults; the config can override them per listener.
 */
import http from 'node:http';
import { z } from 'zod';

/** The limits of one listener. */
export interface ServerLimits {
  /** A request's headers must be complete this long after the connection (or previous request) started. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must be received within this time. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Largest request header block in bytes (431 beyond). */
  maxHeaderSize: number;
  /** Connections held at once; further ones are dropped at accept. */
  maxConnections: number;
}

/** The listeners with their own limits; per-host listeners use `main`'s. */
export type ListenerName = 'main' | 'admin' | 'dashboard';

/** The compiled limits of every listener. */
export type ListenerLimits = Record<ListenerName, ServerLimits>;

const TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxHeaderSize: 16_384 };

/**
 * Defaults: a stalled header is cut after 10 s (checked every second, so within 11 s), a trickled request after
 * 30 s. Keep-alive idles 65 s on the request listeners (longer than common load balancers' 60 s, so the balancer
 * closes first and never reuses a socket the gateway is closing), 5 s on admin and dashboard.
 */
export const DEFAULT_LIMITS: ListenerLimits = {
  main: { ...TIMEOUTS, keepAliveTimeoutMs: 65_000, maxConnections: 4_096 },
  admin: { ...TIMEOUTS, keepAliveTimeoutMs: 5_000, maxConnections: 64 },
  dashboard: { ...TIMEOUTS, keepAliveTimeoutMs: 5_000, maxConnections: 512 },
};

const ms = z.int().min(1).max(3_600_000);

/** The overrides of one listener; a headers timeout longer than the request timeout is refused with its path. */
function limitsFor(name: ListenerName) {
  const d = DEFAULT_LIMITS[name];
  return z
    .strictObject({
      headersTimeoutMs: ms.optional(),
      requestTimeoutMs: ms.optional(),
      keepAliveTimeoutMs: ms.optional(),
      maxHeaderSize: z.int().min(1_024).max(1_048_576).optional(),
      maxConnections: z.int().min(1).max(1_000_000).optional(),
    })
    .refine((l) => (l.headersTimeoutMs ?? d.headersTimeoutMs) <= (l.requestTimeoutMs ?? d.requestTimeoutMs), {
      message: 'headersTimeoutMs cannot exceed requestTimeoutMs',
    })
    .optional();
}

/** The config's `serverLimits:` section: overrides per listener (per-host ports use `main`). */
export const serverLimitsSchema = z
  .strictObject({ main: limitsFor('main'), admin: limitsFor('admin'), dashboard: limitsFor('dashboard') })
  .default({});

/** Overrides merged over the defaults. */
export function compileServerLimits(raw: z.infer<typeof serverLimitsSchema>): ListenerLimits {
  const one = (name: ListenerName): ServerLimits => {
    const l: ServerLimits = { ...DEFAULT_LIMITS[name] };
    for (const [k, v] of Object.entries(raw[name] ?? {})) if (v !== undefined) l[k as keyof ServerLimits] = v;
    return l;
  };
  return { main: one('main'), admin: one('admin'), dashboard: one('dashboard') };
}

/** How often Node checks header/request deadlines: often enough that a deadline is overrun by at most 1 s. */
function checkInterval(l: ServerLimits): number {
  return Math.max(25, Math.min(1_000, Math.floor(l.headersTimeoutMs / 4)));
}

/** An HTTP server with these limits applied. */
export function limitedServer(limits: ServerLimits, handler: http.RequestListener): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderSize,
      connectionsCheckingInterval: checkInterval(limits),
    },
    handler,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}
