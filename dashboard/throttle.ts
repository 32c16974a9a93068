/**
 * Sign-in throttling shared through the store (issue 13), so every dashboard instance sees the same counts: per
 * client address (every attempt: sign-up, sign-in, link request) and per (e-mail, client address). No counter is
 * per e-mail alone, so failures from one address never lock the owner out of another; an unknown e-mail is counted
 * exactly like a known one, so the answers do not tell whether an account exists.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { addressUnit } from '../gateway/net/address';
import { clientAddress, InvalidForwarded } from '../gateway/net/client-address';
import type { AppContext } from './context';
import { DashboardError } from './errors';

/** What the throttle reads of a context (the dashboard's, or the operator console's). */
export type ThrottleContext = Pick<AppContext, 'clock' | 'trustProxy' | 'trustProxyHeader'> & {
  store: Pick<AppContext['store'], 'hitWindow'>;
};

/** Attempts allowed per window: per (e-mail, client address) and per client address. */
export const SIGNIN_LIMITS = { perEmail: 10, perAddress: 30, windowMs: 15 * 60_000 };

/** The client's counting unit: IPv4 address or IPv6 /64, like IP slots (D6: one host holds a whole /64). */
function addressName(ctx: ThrottleContext, req: Request): string {
  const address = clientAddress(
    req.socket.remoteAddress,
    req.headers,
    ctx.trustProxy ?? [],
    ctx.trustProxyHeader,
  );
  // D3a: a malformed forwarding entry is refused, never counted against the proxy's own address.
  if (address instanceof InvalidForwarded) {
    throw new DashboardError('invalid_parameter', 'The forwarding header is malformed', address.header);
  }
  return address ? addressUnit(address, 32, 64) : 'unknown';
}

/** A short stable digest of the e-mail (case-insensitive), so the counter's name is bounded and holds no address. */
function emailName(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

function tooMany(resetAt: number, now: number, kind: AttemptKind): DashboardError {
  const wait = Math.max(1, Math.ceil((resetAt - now) / 1000));
  const minutes = Math.ceil(wait / 60);
  return new DashboardError(
    'rate_limited',
    `Too many ${kind === '2fa' ? 'code' : 'sign-in'} attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    undefined,
    wait,
  );
}

/** What is attempted: signing in (and up, and links), or a second-factor code (counted apart, with the same limits). */
export type AttemptKind = 'signin' | '2fa';

/** Count an attempt for the client address and (when given) the e-mail from it; throws 429 when over either limit. */
export async function limitAttempt(
  ctx: ThrottleContext,
  req: Request,
  email: string | null,
  kind: AttemptKind = 'signin',
): Promise<void> {
  const { store, clock } = ctx;
  const { perAddress, perEmail, windowMs } = SIGNIN_LIMITS;
  const address = addressName(ctx, req);
  const now = clock.now();
  const byAddress = await store.hitWindow(`${kind}:ip:${address}`, windowMs, now);
  if (byAddress.count > perAddress) throw tooMany(byAddress.resetAt, now, kind);
  if (!email) return;
  const byPair = await store.hitWindow(`${kind}:pair:${emailName(email)}:${address}`, windowMs, now);
  if (byPair.count > perEmail) throw tooMany(byPair.resetAt, now, kind);
}
