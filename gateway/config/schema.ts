/** The YAML config's strict schema (zod): unknown keys and bad values are refused with their path. */
import { z } from 'zod';
import { ADAPTERS } from '../../adapters';
import { parseCidr } from '../net/address';
import { serverLimitsSchema } from '../net/server-limits';
import { ALL_CREDENTIAL_POSITIONS, type CredentialPosition } from '../policy/ruleset';

const port = z.int().min(0).max(65535);
const listen = z.strictObject({ host: z.string().min(1).default('127.0.0.1'), port });

const cidr = z.string().refine((s) => parseCidr(s) !== null, { message: 'not an IP address or CIDR block' });

const httpUrl = z.string().refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'not an http(s) URL' },
);

/**
 * The address customers call (an absolute http(s) URL without query, fragment or credentials; a path prefix is kept):
 * samples, the API reference and the dashboard show it.
 */
const publicUrl = httpUrl.refine(
  (s) => {
    const u = new URL(s);
    return u.search === '' && u.hash === '' && u.username === '' && u.password === '';
  },
  {
    message:
      'an absolute http(s) URL without query, fragment or user:password, such as "https://api.example.net"',
  },
);

const count = z.int().min(0);

/** A burst limit: a whole number of requests above 0 (0 would refuse everything: leave the window out instead). */
const burstCount = z.int().min(1).max(1_000_000_000);
/** One scope's burst limits (docs/gateway.md, "Burst limits"); at least one window. */
const burstLimit = z
  .strictObject({ perSecond: burstCount.optional(), perMinute: burstCount.optional() })
  .refine((b) => b.perSecond !== undefined || b.perMinute !== undefined, {
    message: 'give perSecond, perMinute or both (or leave the scope out)',
  });
/** Burst limits per key, per account and per anonymous counting unit; reloadable. */
const burst = z.strictObject({
  key: burstLimit.optional(),
  account: burstLimit.optional(),
  anonymous: burstLimit.optional(),
});

/** D25: the kinds of backend a name can stand for (gateway/backends/). */
export const BACKEND_KINDS = ['geogate', 'nominatim', 'photon', 'pelias', 'http'] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

const backendName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/,
    'a backend name: letters, digits, "_", "." or "-" (at most 63)',
  );

/** Header names an operator may add (a token, RFC 9110); framing and routing headers are the gateway's own. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'cookie',
]);
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name')
  .refine((h) => !RESERVED_HEADERS.has(h.toLowerCase()), {
    error: (i) => `the header ${JSON.stringify(i.input)} is set by the gateway, not by the config`,
  });
/**
 * Response headers never taken from a backend, even when a route lists them (D26): framing, cookies of the upstream's
 * domain, and the gateway's own CORS, request id and quota headers (which always win).
 */
const NEVER_PASSED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-connection',
  'set-cookie',
  'set-cookie2',
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'x-quota-limit',
  'x-quota-used',
  'x-quota-reset',
]);
const responseHeaderName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name')
  .refine((h) => !NEVER_PASSED.has(h.toLowerCase()) && !h.toLowerCase().startsWith('access-control-'), {
    error: (i) =>
      `the header ${JSON.stringify(i.input)} is never taken from a backend (framing, cookies, and the gateway's own ` +
      'CORS, request id and quota headers)',
  });
/** At most this many passthrough answers of one backend are streamed at once (its passthrough pool's sockets). */
const passthroughConnections = z.int().min(1).max(1024).default(64);
/** A value never echoed in messages: it is often the operator's upstream credential. */
const secretText = z.string({ error: 'must be text' }).refine((v) => !/[\r\n\0]/.test(v), {
  message: 'must not contain line breaks or NUL',
});

/** The base URL of a named backend: http(s), no query or fragment (parameters go under `query:`). */
const backendUrl = httpUrl.refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.search === '' && u.hash === '' && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  },
  {
    message:
      'a base URL without query, fragment or user:password (put parameters under query:, credentials under headers:)',
  },
);

/** One entry of `backends:` (D25). */
const namedBackend = z.strictObject({
  kind: z.enum(BACKEND_KINDS),
  url: backendUrl,
  timeoutMs: z.int().min(1).max(600_000).default(5000),
  /** Send X-Request-Id to this backend (default: on for geogate, off for the others). */
  passRequestId: z.boolean().optional(),
  /** Headers added to every request to this backend (the operator's own upstream credential, from ${ENV}). */
  headers: z.record(headerName, secretText).default({}),
  /** Query parameters added to every request to this backend (e.g. an upstream `key=${UPSTREAM_KEY}`). */
  query: z
    .record(z.string().regex(/^[A-Za-z0-9_.~-]+$/, 'not a plain parameter name'), secretText)
    .default({}),
  /** D26: passthrough answers streamed at once from this backend; more wait for a connection (slow readers). */
  passthroughConnections,
});

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A passthrough path pattern (D26): an exact path, or a prefix ending in `/*`. Plain path characters only: no `..` or
 * `.` segment, no `%`, `?`, `#`, `//`, and `*` only as the last segment.
 */
export const PATH_PATTERN = /^(?:\/\*|(?:\/[A-Za-z0-9._~!$&'()+,;=:@-]+)+(?:\/\*|\/)?)$/;
// A "." or ".." segment, also before a ";" path parameter, or a segment that is only a parameter (passthrough-path.ts).
const DOT_SEGMENT = /\/(?:\.{1,2}(?:[/;]|$)|;)/;
const pathPattern = z.string().refine((p) => PATH_PATTERN.test(p) && !DOT_SEGMENT.test(p), {
  error: (i) =>
    `not a path pattern: ${JSON.stringify(i.input)} (an exact path such as "/search", or a prefix ending in "/*" such as "/v1/*"; plain characters, no "..", "%", "?" or "//")`,
});

/** One passthrough route (D26). */
const passthroughRoute = z.strictObject({
  path: pathPattern,
  methods: z.array(z.enum(METHODS)).min(1).default(['GET']),
  /** Requests counted and billed per forwarded request: an integer ≥ 0 (0: not counted). */
  cost: z.int().min(0).max(1000).default(1),
  /** The whole answer's deadline from the request to the last byte; an answer still streaming then is cut. */
  deadlineMs: z.int().min(1).max(3_600_000).default(60_000),
  /** Response headers passed to the client besides the allowlist (content, caching, Retry-After, ranges). */
  responseHeaders: z.array(responseHeaderName).max(50).default([]),
});
const limits = z.strictObject({
  freePerDay: count.optional(),
  anonymousIpv4Prefix: z.int().min(0).max(32).optional(),
  anonymousIpv6Prefix: z.int().min(0).max(128).optional(),
  slotIpv4Prefix: z.int().min(0).max(32).optional(),
  slotIpv6Prefix: z.int().min(0).max(128).optional(),
  slotsPayg: z.int().min(1).optional(),
  slotsUnlimited: z.int().min(1).optional(),
  unlimitedAccountAddresses: z.int().min(1).optional(),
  slotWindowMs: z.int().min(1).optional(),
  pricePerRequest: count.optional(),
  packagePrice: count.optional(),
  whitelistMinIpv6Prefix: z.int().min(0).max(128).optional(),
});

const host = z
  .strictObject({
    name: z.string().min(1).optional(),
    port: port.optional(),
    adapter: z
      .string()
      .refine((a) => a in ADAPTERS, { error: (i) => `unknown adapter ${JSON.stringify(i.input)}` }),
    anonymous: z.boolean().default(true),
    /** D25: the backend of this host's reverse lookups (and passthrough routes); default: the top-level `backend`. */
    backend: backendName.optional(),
    /** D25: the backend of this host's IP lookups (kind geogate); default: `backend` when it is geogate, else "default". */
    ipBackend: backendName.optional(),
    /** D26: routes forwarded as they are to the host's backend, counted and billed. */
    passthrough: z.array(passthroughRoute).default([]),
    /** The address customers call this host at (migration guides, samples); default from `name` and `port`. */
    publicUrl: publicUrl.optional(),
  })
  .refine((h) => h.name !== undefined || h.port !== undefined, {
    message: 'a host needs a name, a port, or both',
  });

/** The old single backend's fields (D25: it is the backend named "default", of kind geogate). */
const singleBackend = z.strictObject({
  url: httpUrl,
  timeoutMs: z.int().min(1).max(600_000).default(5000),
  /** Pass the request id to the backend as X-Request-Id (issue 14 item 2); off for an upstream that refuses it. */
  passRequestId: z.boolean().default(true),
  /** D26: passthrough answers streamed at once from this backend. */
  passthroughConnections,
});

/**
 * Stands for "no top-level `backend:`" once validated (a config may name all its backends under `backends:`). The
 * output keeps `backend` an object so code written for the single-backend config reads it unchanged; compile and the
 * cross-field checks read `url === ''` as absent.
 */
export const NO_DEFAULT_BACKEND = Object.freeze({
  url: '',
  timeoutMs: 5000,
  passRequestId: true,
  passthroughConnections: 64,
});

const store = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('embedded'),
    path: z.string().min(1),
    /** D33: decided in memory by the one process (default with one worker) or a transaction per turn (direct). */
    admission: z.enum(['memory', 'direct']).optional(),
    /** D34: the memory owner's fold interval, ms (default 1000). */
    foldEveryMs: z.number().int().min(10).max(60_000).optional(),
  }),
  z.strictObject({
    kind: z.literal('shared'),
    postgres: z.string().min(1),
    redis: z.string().min(1),
    keyPrefix: z.string().min(1).optional(),
    /** D33's credit leases: on by default; an object changes its constants, false turns them off (docs/shared-state.md). */
    leases: z
      .union([
        z.boolean(),
        z.strictObject({
          maxLease: z.number().int().min(1).optional(),
          windowMs: z.number().int().min(1).optional(),
          idleReturnMs: z.number().int().min(1).optional(),
          stopMs: z.number().int().min(1).optional(),
          ttlMs: z.number().int().min(1).optional(),
          flushMs: z.number().int().min(1).optional(),
          refreshAt: z.number().min(0).max(1).optional(),
          directBackoffMs: z.number().int().min(0).optional(),
          viewMs: z.number().int().min(1).optional(),
          reclaimMs: z.number().int().min(0).optional(),
        }),
      ])
      .optional(),
  }),
]);

/**
 * D38: forward auth, a listener of its own where an edge proxy (nginx `auth_request`, Caddy `forward_auth`, Traefik
 * ForwardAuth, Envoy `ext_authz`) asks geogate to decide a request it will proxy itself (docs/forward-auth.md).
 */
const forwardAuth = z.strictObject({
  listen,
  /**
   * Where the original request is read (D3a's rule: the one form the operator's proxy writes; the other is ignored):
   * `x-original`: X-Original-URI and X-Original-Method (nginx); `x-forwarded`: X-Forwarded-Uri and X-Forwarded-Method
   * (Caddy, Traefik); `path`: the path after /v1/admit and the request's own method (Envoy's path_prefix).
   */
  request: z.enum(['x-original', 'x-forwarded', 'path']).default('x-original'),
  /** How long after the decision the proxy may report a failed answer on the release route (0: no release route). */
  releaseWindowMs: z.int().min(0).max(300_000).default(10_000),
});

const position = z.enum(ALL_CREDENTIAL_POSITIONS as [CredentialPosition, ...CredentialPosition[]]);

/** The config file's schema. `policy` has no default (D1). */
export const configSchema = z.strictObject({
  policy: z.enum(['A', 'B'], { error: 'required: "A" or "B" (there is no default: choose the rule set)' }),
  /** The main host's public address (samples, the API reference, the dashboard); default from `listen`. */
  publicApiUrl: publicUrl.optional(),
  listen: listen.default({ host: '127.0.0.1', port: 8080 }),
  admin: z
    .strictObject({
      listen: listen.default({ host: '127.0.0.1', port: 8081 }),
      token: z.string().min(16, 'the admin token needs at least 16 characters').optional(),
    })
    .default({ listen: { host: '127.0.0.1', port: 8081 } }),
  /** The old form (D25): one backend of kind geogate named "default", the default for every host. */
  backend: singleBackend.default(NO_DEFAULT_BACKEND),
  /** D25: named backends, each of a kind. */
  backends: z.record(backendName, namedBackend).default({}),
  store,
  onStoreFailure: z.enum(['closed', 'open']).default('closed'),
  trustProxy: z.array(cidr).default([]),
  /** D3a: the one header the trusted proxies write; the other is ignored. */
  trustProxyHeader: z.enum(['x-forwarded-for', 'forwarded']).default('x-forwarded-for'),
  /** Issue 13: timeouts, header size and connection caps per listener (defaults in gateway/net/server-limits.ts). */
  serverLimits: serverLimitsSchema,
  /** Issue 14: on SIGTERM/SIGINT, /readyz turns 503, listeners stop accepting after delayMs, in-flight requests get timeoutMs. */
  drain: z
    .strictObject({
      delayMs: z.int().min(0).max(600_000).default(5_000),
      timeoutMs: z.int().min(1).max(600_000).default(30_000),
    })
    .default({ delayMs: 5_000, timeoutMs: 30_000 }),
  /**
   * Issue 12: gateway processes serving the same ports (node:cluster): a number, or `auto` (one per CPU). 1 runs
   * no cluster at all.
   */
  workers: z.union([z.int().min(1).max(64), z.literal('auto')]).default(1),
  keyPepper: z.string().min(16, 'the key pepper needs at least 16 characters'),
  credentials: z.strictObject({ accept: z.array(position).min(1) }).optional(),
  hosts: z.array(host).min(1),
  limits: limits.default({}),
  /** Requests per second and per minute per key, account and anonymous unit (gateway/policy/burst.ts). */
  burst: burst.optional(),
  forwardAuth: forwardAuth.optional(),
  /**
   * Issue 6: the customer dashboard's section. The gateway does not read it: the composition root
   * (runtime/config.ts) validates it with the dashboard's own schema; here it is only let through so tools that read
   * the gateway's part of a config (the CLI's store commands) accept a full config file.
   */
  dashboard: z.unknown().optional(),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
      /** json (default): one JSON object per line; pretty: coloured lines for a terminal (issue 14). */
      format: z.enum(['json', 'pretty']).default('json'),
      /** `requestId` in the per-request line (issue 14 item 2); warning and error lines always carry it. */
      requestId: z.boolean().default(true),
    })
    .optional(),
});

/** A validated config before compilation. */
export type RawConfig = z.infer<typeof configSchema>;
