/**
 * The leaked-key report (D39): `POST /v1/keys/report` on the main host, with the key in a JSON body (`{"key": …}`) or
 * a form (`key=…`). Whoever holds a key can report it found in the wild: an active key whose working secret it is
 * (the current one, or the previous one within its rotation's overlap) is revoked and its owner told (the
 * key.revoked notice with reason `reported`). The answer is the same 202 for a valid, revoked, unknown or malformed
 * key, so the route tells nothing about keys or accounts; only a missing `key` field (400) and too many reports from
 * one address (429, counted like sign-in attempts) differ, and neither depends on the key.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock';
import { hashKey, isKeySyntax } from '../core/keys';
import { addressUnit } from '../net/address';
import { clientAddressOn, InvalidForwarded } from '../net/client-address';
import type { CompiledConfig } from '../config/compile';
import type { KeyStore, MarkStore } from '../store/ports';
import type { ApiKey } from '../store/types';
import { parseForm, readBody } from './request';

/** The route's path on the main host. */
export const KEY_REPORT_PATH = '/v1/keys/report';
/** Reports allowed per client address (IPv4 address or IPv6 /64) per window, like sign-in attempts. */
export const REPORT_LIMITS = { perAddress: 30, windowMs: 15 * 60_000 };

/** What the route needs. */
export interface KeyReportDeps {
  config: Pick<CompiledConfig, 'keyPepper' | 'trustProxy' | 'trustProxyHeader'>;
  store: Pick<KeyStore, 'revokeKeyByHash'> & Pick<MarkStore, 'hitWindow'>;
  clock: Clock;
  logger: Logger;
  /** Told of a key revoked by a report (the owner's notice). */
  onReported?: (key: ApiKey) => void;
}

const RECEIVED = JSON.stringify({
  status: 'received',
  detail: 'Thank you. If this is a working geogate key, it is revoked now and its owner has been told.',
});

/** Whether a request is a report (method and path; the host is the caller's check). */
export function isKeyReport(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  return req.method === 'POST' && (url === KEY_REPORT_PATH || url.startsWith(`${KEY_REPORT_PATH}?`));
}

/** Answer one report. A store fault is answered 503 (the reporter may retry), whatever the key. */
export async function answerKeyReport(
  d: KeyReportDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const address = clientAddressOn(req.socket, req.headers, d.config.trustProxy, d.config.trustProxyHeader);
  if (address === null || address instanceof InvalidForwarded) {
    return problem(res, 400, 'invalid_forwarded', 'The forwarding header names no valid client address.');
  }
  const body = await readBody(req);
  const presented = body === 'too_large' ? null : keyOf(req, body.toString('utf8'));
  if (presented === null) {
    return problem(
      res,
      400,
      'invalid_parameter',
      'Send the key found as `key` in a JSON or form body.',
      'key',
    );
  }
  const now = d.clock.now();
  try {
    const name = `keyreport:ip:${addressUnit(address, 32, 64)}`;
    const hits = await d.store.hitWindow(name, REPORT_LIMITS.windowMs, now);
    if (hits.count > REPORT_LIMITS.perAddress) {
      const wait = Math.max(1, Math.ceil((hits.resetAt - now) / 1000));
      res.setHeader('retry-after', String(wait));
      return problem(res, 429, 'rate_limited', 'Too many reports from this address; try again later.');
    }
    // A value of no key's shape is hashed and looked up all the same: the work does not depend on the value.
    const hash = hashKey(presented, d.config.keyPepper);
    const revoked = await d.store.revokeKeyByHash(isKeySyntax(presented) ? hash : `x${hash}`, now);
    if (revoked !== null) {
      // The audit line names the key by id and a digest of the reporter's address, never the secret.
      const reporter = createHash('sha256').update(address.toString()).digest('base64url').slice(0, 16);
      d.logger.info(
        { audit: 'key.reported', account: revoked.accountId, object: revoked.id, reporter },
        'audit',
      );
      d.onReported?.(revoked);
    }
  } catch (err) {
    d.logger.error({ err: (err as Error).message }, 'key report: store unavailable');
    return problem(res, 503, 'store_unavailable', 'The report could not be recorded; try again shortly.');
  }
  res.writeHead(202, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(RECEIVED);
}

/** The `key` field of a JSON or form body (trimmed), or null when there is none. */
function keyOf(req: IncomingMessage, text: string): string | null {
  let value: unknown;
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
    value = parseForm(text)?.get('key')?.[0];
  } else {
    try {
      value = (JSON.parse(text) as Record<string, unknown> | null)?.['key'];
    } catch {
      return null;
    }
  }
  return typeof value === 'string' && value.trim() !== '' && value.length <= 200 ? value.trim() : null;
}

/** A problem+json answer (D20) that names no key. */
function problem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  parameter?: string,
): void {
  const body: Record<string, unknown> = { type: `urn:geogate:problem:${code}`, status, detail, code };
  if (parameter !== undefined) body['parameter'] = parameter;
  res.writeHead(status, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
