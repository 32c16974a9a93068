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

const count = z.int().min(0);
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
  })
  .refine((h) => h.name !== undefined || h.port !== undefined, {
    message: 'a host needs a name, a port, or both',
  });

const store = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('embedded'), path: z.string().min(1) }),
  z.strictObject({
    kind: z.literal('shared'),
    postgres: z.string().min(1),
    redis: z.string().min(1),
    keyPrefix: z.string().min(1).optional(),
  }),
]);

const position = z.enum(ALL_CREDENTIAL_POSITIONS as [CredentialPosition, ...CredentialPosition[]]);

/** The config file's schema. `policy` has no default (D1). */
export const configSchema = z.strictObject({
  policy: z.enum(['A', 'B'], { error: 'required: "A" or "B" (there is no default: choose the rule set)' }),
  listen: listen.default({ host: '127.0.0.1', port: 8080 }),
  admin: z
    .strictObject({
      listen: listen.default({ host: '127.0.0.1', port: 8081 }),
      token: z.string().min(16, 'the admin token needs at least 16 characters').optional(),
    })
    .default({ listen: { host: '127.0.0.1', port: 8081 } }),
  backend: z.strictObject({
    url: httpUrl,
    timeoutMs: z.int().min(1).max(600_000).default(5000),
    /** Pass the request id to the backend as X-Request-Id (issue 14 item 2); off for an upstream that refuses it. */
    passRequestId: z.boolean().default(true),
  }),
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
