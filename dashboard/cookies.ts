/** Reading and writing the dashboard's cookies (all HttpOnly; Secure; SameSite=Lax; Path=/). */
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'gg_session';
/** Pre-session double-submit CSRF cookie for the sign-in and sign-up forms. */
export const PRE_COOKIE = 'gg_pre';

/** The request's cookies by name (first occurrence wins; malformed pairs ignored). */
export function readCookies(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // a malformed value is treated as absent
    }
  }
  return out;
}

/** Set a cookie with the dashboard's attributes; maxAgeSec 0 deletes it. */
export function setCookie(res: Response, name: string, value: string, maxAgeSec: number): void {
  const attrs = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax'];
  attrs.push(`Max-Age=${maxAgeSec}`);
  res.append('Set-Cookie', attrs.join('; '));
}
