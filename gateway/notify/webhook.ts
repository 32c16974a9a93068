/**
 * Signed webhooks (Standard Webhooks): `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature`
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the endpoint's secret `whsec_<base64>`. Deliveries follow
 * no redirect, are bounded in time and in the answer read, and (unless the config allows it) reach only global
 * unicast addresses: the address is checked when the URL is saved and again when it is connected to (a name when it
 * is resolved, so a DNS answer cannot swap it afterwards; an IP literal before the socket opens).
 */
import { createHmac, randomBytes } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A new endpoint secret: what the customer sees once (`whsec_…`) and what the store keeps to sign (the key). */
export function newWebhookSecret(): { shown: string; key: string } {
  const key = randomBytes(24).toString('base64');
  return { shown: `whsec_${key}`, key };
}

/** The `webhook-signature` value of one message. */
export function signWebhook(key: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(key, 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** IPv6 global unicast (RFC 4291 §2.4): everything outside 2000::/3 is reserved, embedded IPv4 or local. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address is a global unicast target: IPv4 outside every special range (loopback, private, link-local,
 * CGNAT, documentation, reserved...); IPv6 inside 2000::/3 and outside every special range there (6to4, Teredo,
 * NAT64, documentation, benchmarking, ORCHID...). IPv6 forms that embed an IPv4 address (mapped, compatible,
 * NAT64, 6to4, Teredo) are refused whatever the IPv4 address: the route to it is not the address checked.
 */
export function isGlobalUnicast(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.range() !== 'unicast') return false;
  return ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** Why an endpoint URL is refused (a sentence for the field), or null when it is accepted. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > 2000) return 'is too long (2,000 characters at most)';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = ipaddr.isValid(host);
  const local = host === 'localhost' || host.endsWith('.localhost') || (literal && !isGlobalUnicast(host));
  if (local && !allowPrivate) return 'must not point to a loopback or private address';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowPrivate && local) return null;
  return 'must start with https://';
}

/** A DNS lookup that refuses non-public answers (the check happens on the address actually connected to). */
function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !isGlobalUnicast(a.address));
      if (bad || list.length === 0) {
        const e = Object.assign(new Error('private target'), { code: 'EPRIVATETARGET' });
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0] as dns.LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** What one POST ended with: an HTTP status, or the class of the error (no message: it may quote the URL). */
export type PostOutcome = { status: number } | { error: string };

/** The class of a transport error. */
function errorClass(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'EPRIVATETARGET') return 'private_target';
  if (code === 'ETIMEDOUT' || code === 'TIMEOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET') return 'connection_reset';
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT'))) return 'tls';
  return 'network';
}

/** POST a signed message; resolves with the status (the body is read up to a bound and ignored) or an error class. */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; maxResponseBytes: number; allowPrivate: boolean },
): Promise<PostOutcome> {
  const u = new URL(url);
  // Node skips `lookup` for an IP literal: such a host is checked here, before any socket opens.
  const literal = u.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && ipaddr.isValid(literal) && !isGlobalUnicast(literal)) {
    return Promise.resolve({ error: 'private_target' });
  }
  return new Promise((resolve) => {
    const transport = u.protocol === 'https:' ? https : http;
    let done = false;
    const finish = (o: PostOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = transport.request(
      u,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        agent: false,
        ...(opts.allowPrivate ? {} : { lookup: publicOnlyLookup() }),
      },
      (res) => {
        let read = 0;
        const status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > opts.maxResponseBytes) {
            finish({ status });
            res.destroy();
          }
        });
        res.on('end', () => finish({ status }));
        res.on('error', () => finish({ status }));
      },
    );
    const timer = setTimeout(() => {
      finish({ error: 'timeout' });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err) => finish({ error: errorClass(err) }));
    req.end(body);
  });
}
