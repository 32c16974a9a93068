/** Request plumbing: security headers, session loading, CSRF (synchroniser token + Origin), error answers. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Account } from '../gateway/store/types';
import type { AppContext } from './context';
import { readCookies, setCookie } from './cookies';
import { DashboardError } from './errors';
import { credentialStamp, readSession, sessionMark, type Session } from './session';

/** The signed-in customer of a request (set by `loadSession`). */
export interface Signed {
  session: Session;
  account: Account;
}

/** The request's signed-in customer; throws 401 when there is none (routes behind `requireSession`). */
export function signed(res: Response): Signed {
  const s = res.locals['signed'] as Signed | undefined;
  if (!s) throw new DashboardError('unauthorized', 'Sign in first');
  return s;
}

/**
 * Headers for every answer, by helmet (issue 15 item 8): a strict CSP (no inline script or style, no plugins, no
 * framing, forms and base to this origin only), X-Frame-Options DENY, nosniff, Referrer-Policy same-origin, and
 * helmet's other defaults (HSTS, cross-origin isolation headers, no DNS prefetch); plus no caching of account data.
 * `useDefaults: false` so helmet adds no directive we did not choose (its default `upgrade-insecure-requests`
 * would break a dashboard served over plain HTTP behind a TLS-terminating proxy on a private network).
 */
const helmetHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
});

/** helmet's headers and `Cache-Control: no-store` on every answer. */
export const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  helmetHeaders(req, res, next);
};

/** Load the session and its account (a signed-out session, or one of a vanished account, counts as none). */
export function loadSession(ctx: AppContext): RequestHandler {
  return async (req, res, next) => {
    let session = await readSession(req, ctx.secrets, ctx.clock);
    if (session && (await ctx.store.isConsumed(sessionMark(session.sid), ctx.clock.now()))) session = null;
    if (session) {
      const account = await ctx.store.getAccount(session.accountId);
      // A session begun before the password or e-mail changed is over (issue 15 item 1).
      if (account && account.status !== 'deleted' && credentialStamp(ctx.secrets, account) === session.stamp)
        res.locals['signed'] = { session, account } satisfies Signed;
    }
    next();
  };
}

/** What an account with an unverified e-mail address may still change: its settings, the link, signing out. */
const UNVERIFIED_MAY = [/^\/signout$/, /^\/settings(\/|$)/, /^\/verify\//];

/**
 * Until the e-mail address is verified (rule set A's sign-up, issue 15 item 1) the customer may sign in and look
 * around, but every other change is refused (403 email_unverified): no key is created, no package bought, no top-up
 * made, so no API traffic is billed to an unproven address. An allow-list, so pages added later are covered too.
 */
export const verifiedForChanges: RequestHandler = (req, res, next) => {
  const s = res.locals['signed'] as Signed | undefined;
  if (!s || s.account.emailVerifiedAt !== null) return next();
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  if (UNVERIFIED_MAY.some((p) => p.test(req.path))) return next();
  next(
    new DashboardError(
      'email_unverified',
      'Confirm your e-mail address first: open the link we sent you, or send it again from the banner above.',
    ),
  );
};

/** Pages behind sign-in: visitors are sent to the sign-in page. */
export const requirePageSession: RequestHandler = (_req, res, next) => {
  if (res.locals['signed']) return next();
  res.redirect(303, '/signin');
};

/** API behind sign-in: 401 without a session. */
export const requireApiSession: RequestHandler = (_req, _res, next) => {
  next(
    _res.locals['signed']
      ? undefined
      : new DashboardError('unauthorized', 'Sign in first (no valid session)'),
  );
};

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The origin a browser says the request came from (Origin, else Referer), or null. */
function requestOrigin(req: Request): string | null {
  const origin = req.headers.origin;
  if (origin && origin !== 'null') return origin;
  if (origin === 'null') return 'null';
  const referer = req.headers.referer;
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * The CSRF token for a form on this page: the session's when signed in (the only one `csrf` then accepts), else the
 * visitor's pre-session token (double-submit cookie, set when missing).
 */
export function preSessionToken(ctx: Pick<AppContext, 'secrets'>, req: Request, res: Response): string {
  const s = res.locals['signed'] as Signed | undefined;
  if (s) return s.session.csrf;
  const name = ctx.secrets.cookies.pre;
  let seed = readCookies(req).get(name);
  if (!seed || !/^[A-Za-z0-9_-]{22,64}$/.test(seed)) {
    seed = randomBytes(18).toString('base64url');
    setCookie(res, name, seed, 3600);
  }
  return ctx.secrets.mac('pre', seed);
}

/**
 * CSRF on every state-changing request: a browser Origin (or Referer) other than the dashboard's is refused, and
 * the token (form field `_csrf` or header `X-CSRF-Token`) must match the session's once signed in, and only before
 * sign-in the pre-session cookie's. The pre-session token is bound to a cookie value anyone can choose (and a
 * sibling subdomain could plant without `__Host-`), so it must never authorise a signed-in change.
 */
export function csrf(ctx: Pick<AppContext, 'origin' | 'secrets'>): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const origin = requestOrigin(req);
    if (origin !== null && origin !== ctx.origin) {
      return next(new DashboardError('csrf_failed', 'Request refused: it did not come from this dashboard'));
    }
    const body = req.body as Record<string, unknown> | undefined;
    const sent = req.get('x-csrf-token') ?? (typeof body?.['_csrf'] === 'string' ? body['_csrf'] : '');
    const s = res.locals['signed'] as Signed | undefined;
    const seed = s ? undefined : readCookies(req).get(ctx.secrets.cookies.pre);
    const expected = s ? s.session.csrf : seed ? ctx.secrets.mac('pre', seed) : undefined;
    if (!sent || expected === undefined || !sameToken(sent, expected)) {
      return next(
        new DashboardError(
          'csrf_failed',
          'Request refused: the form has expired; reload the page and try again',
        ),
      );
    }
    next();
  };
}

/** Whether a request wants JSON (API) rather than a page. */
export const wantsJson = (req: Request): boolean => req.path.startsWith('/api/');

/** Async route wrapper: rejections go to the error handler. */
export function handle(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };
}
