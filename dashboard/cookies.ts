/**
 * Reading and writing the dashboard's cookies (all HttpOnly; Secure; SameSite=Lax; Path=/), with the `cookie`
 * library (RFC 6265 parsing and serialising; issue 15 item 8) instead of a hand-written parser.
 */
import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'gg_session';
/** Pre-session double-submit CSRF cookie for the sign-in and sign-up forms. */
export const PRE_COOKIE = 'gg_pre';

/** The names of the session and pre-session cookies of one dashboard. */
export interface CookieNames {
  session: string;
  pre: string;
}

/**
 * The cookie names for a dashboard at `publicUrl`: with an https URL they carry the `__Host-` prefix, so a browser
 * accepts them only Secure, for `Path=/` and without `Domain` (a sibling subdomain cannot plant or overwrite them);
 * over plain http (a local demo) the prefix would be refused outside secure contexts, so the names stay plain.
 */
export function cookieNames(publicUrl: string): CookieNames {
  const prefix = new URL(publicUrl).protocol === 'https:' ? '__Host-' : '';
  return { session: prefix + SESSION_COOKIE, pre: prefix + PRE_COOKIE };
}

/**
 * The request's cookies by name. The first occurrence of a name wins (a cookie set for a narrower path by a
 * sibling app cannot override ours); a value that does not decode is passed on as sent, and every reader checks
 * its values (a session token is verified, the pre-session seed must match its pattern).
 */
export function readCookies(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  const header = req.headers.cookie;
  if (!header) return out;
  for (const [name, value] of Object.entries(parse(header))) if (value !== undefined) out.set(name, value);
  return out;
}

/** Set a cookie with the dashboard's attributes; maxAgeSec 0 deletes it. */
export function setCookie(res: Response, name: string, value: string, maxAgeSec: number): void {
  res.append(
    'Set-Cookie',
    serialize(name, value, { path: '/', httpOnly: true, secure: true, sameSite: 'lax', maxAge: maxAgeSec }),
  );
}
