/** Sessions: HS256 tokens signed with the session secret (jose), carried in an HttpOnly cookie. */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../gateway/core/clock';
import type { Account } from '../gateway/store/types';
import type { MarkStore } from '../gateway/store/ports';
import { cookieNames, readCookies, setCookie, type CookieNames } from './cookies';

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
  /** When the token expires (epoch ms): sign-out marks the sid ended until then. */
  expiresAt: number;
  /** The account's credential stamp when the session began: a changed password or e-mail ends the session. */
  stamp: string;
}

/** The store's single-use id that marks a session ended (signed out): "session:" + sid. */
export function sessionMark(sid: string): string {
  return `session:${sid}`;
}

/** Key material derived from the configured secret, one per purpose, and the cookie names that carry it. */
export class Secrets {
  readonly jwtKey: Uint8Array;
  private readonly macKey: Buffer;
  constructor(
    secret: string,
    /** The session and pre-session cookies' names (`__Host-` under an https publicUrl). */
    readonly cookies: CookieNames = cookieNames('http://localhost'),
  ) {
    this.jwtKey = new Uint8Array(createHmac('sha256', secret).update('jwt').digest());
    this.macKey = createHmac('sha256', secret).update('mac').digest();
  }
  /** base64url HMAC of a labelled value. */
  mac(label: string, value: string): string {
    return createHmac('sha256', this.macKey).update(`${label}|${value}`).digest('base64url');
  }
}

/**
 * The account's credential stamp: a MAC of its e-mail and password hash. Sessions and account links carry the stamp
 * of when they were issued, so changing the password or the e-mail ends every other session and voids every link
 * issued before (issue 15 item 1).
 */
export function credentialStamp(secrets: Secrets, account: Pick<Account, 'email' | 'passwordHash'>): string {
  return secrets.mac('stamp', `${account.email.toLowerCase()}|${account.passwordHash ?? ''}`).slice(0, 22);
}

/** Issue a session for an account and set its cookie. */
export async function startSession(
  res: Response,
  secrets: Secrets,
  clock: Clock,
  account: Pick<Account, 'id' | 'email' | 'passwordHash'>,
): Promise<Session> {
  const accountId = account.id;
  const stamp = credentialStamp(secrets, account);
  const sid = randomBytes(16).toString('base64url');
  const now = Math.floor(clock.now() / 1000);
  const token = await new SignJWT({ sid, st: stamp })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(accountId)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + SESSION_SECONDS)
    .sign(secrets.jwtKey);
  setCookie(res, secrets.cookies.session, token, SESSION_SECONDS);
  return { accountId, sid, csrf: secrets.mac('csrf', sid), expiresAt: (now + SESSION_SECONDS) * 1000, stamp };
}

/**
 * The request's token as a session, or null (absent, tampered, expired by the injected clock). Whether it was
 * signed out is the store's to say (loadSession checks `sessionMark(sid)`).
 */
export async function readSession(req: Request, secrets: Secrets, clock: Clock): Promise<Session | null> {
  const token = readCookies(req).get(secrets.cookies.session);
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, secrets.jwtKey, {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      currentDate: new Date(clock.now()),
    });
    const sid = payload['sid'];
    const stamp = payload['st'];
    if (typeof payload.sub !== 'string' || typeof sid !== 'string' || !sid || !payload.exp) return null;
    if (typeof stamp !== 'string') return null;
    return {
      accountId: payload.sub,
      sid,
      csrf: secrets.mac('csrf', sid),
      expiresAt: payload.exp * 1000,
      stamp,
    };
  } catch {
    return null;
  }
}

/**
 * Sign out: mark the session's sid ended in the store until the token expires (so a copied token is refused by
 * every instance, after restarts too), then delete the cookie.
 */
export async function endSession(
  res: Response,
  store: MarkStore,
  clock: Clock,
  session: Session | null,
  cookie: string,
): Promise<void> {
  if (session) await store.consumeOnce(sessionMark(session.sid), session.expiresAt, clock.now());
  setCookie(res, cookie, '', 0);
}
