/** Sessions: HS256 tokens signed with the session secret (jose), carried in an HttpOnly cookie. */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../gateway/core/clock';
import { SESSION_COOKIE, readCookies, setCookie } from './cookies';

/** Sessions last 12 hours; signing in again starts a new one. */
export const SESSION_SECONDS = 12 * 3600;
const AUDIENCE = 'geogate-dashboard-session';

/** A signed-in customer. */
export interface Session {
  accountId: string;
  /** Random session id: the CSRF token is derived from it. */
  sid: string;
  /** The synchroniser token every state-changing request of this session must carry. */
  csrf: string;
}

/** Key material derived from the configured secret, one per purpose. */
export class Secrets {
  readonly jwtKey: Uint8Array;
  private readonly macKey: Buffer;
  constructor(secret: string) {
    this.jwtKey = new Uint8Array(createHmac('sha256', secret).update('jwt').digest());
    this.macKey = createHmac('sha256', secret).update('mac').digest();
  }
  /** base64url HMAC of a labelled value. */
  mac(label: string, value: string): string {
    return createHmac('sha256', this.macKey).update(`${label}|${value}`).digest('base64url');
  }
}

/** Issue a session for an account and set its cookie. */
export async function startSession(
  res: Response,
  secrets: Secrets,
  clock: Clock,
  accountId: string,
): Promise<Session> {
  const sid = randomBytes(16).toString('base64url');
  const now = Math.floor(clock.now() / 1000);
  const token = await new SignJWT({ sid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(accountId)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + SESSION_SECONDS)
    .sign(secrets.jwtKey);
  setCookie(res, SESSION_COOKIE, token, SESSION_SECONDS);
  return { accountId, sid, csrf: secrets.mac('csrf', sid) };
}

/** The request's valid session, or null (absent, tampered, expired by the injected clock). */
export async function readSession(req: Request, secrets: Secrets, clock: Clock): Promise<Session | null> {
  const token = readCookies(req).get(SESSION_COOKIE);
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, secrets.jwtKey, {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      currentDate: new Date(clock.now()),
    });
    const sid = payload['sid'];
    if (typeof payload.sub !== 'string' || typeof sid !== 'string') return null;
    return { accountId: payload.sub, sid, csrf: secrets.mac('csrf', sid) };
  } catch {
    return null;
  }
}

/** Delete the session cookie. */
export function endSession(res: Response): void {
  setCookie(res, SESSION_COOKIE, '', 0);
}
