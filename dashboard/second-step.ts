/**
 * Where the second factor is asked for:
 * - At sign-in: the first factor (A's password; B's mailed link, and the mailed links that end in a session: a
 *   password reset, an e-mail change) no longer starts a session for an account with the second factor on. It sets
 *   a short signed "half signed-in" cookie instead (5 minutes, single use, void when the password or e-mail changes),
 *   and /signin/2fa asks for the code.
 * - Again for sensitive changes (step-up): deleting the account, changing the password or the e-mail, creating,
 *   buying or rotating a key, new recovery codes, turning the second factor off. A code confirmed for this session
 *   counts for STEP_UP_MINUTES (a signed cookie bound to the session id); signing in itself does not count, so the
 *   code is asked again after sign-in. Without a fresh confirmation the page asks for the code and then carries
 *   the form on; the JSON API answers 403 second_factor_required until the body has `otp`.
 */
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { SignJWT, jwtVerify } from 'jose';
import type { Account } from '../gateway/store/types';
import { customer } from './actor';
import type { AppContext } from './context';
import { readCookies, setCookie } from './cookies';
import { DashboardError } from './errors';
import { wantsJson, type Signed } from './middleware';
import { credentialStamp, type Session } from './session';
import { checkSecondFactor, limitSecondFactor, secondFactorOn, wrongCode } from './totp';
import { pageContext } from './routes/pages';
import * as views from './views/security';

/** How long the half signed-in state lasts. */
export const PENDING_MINUTES = 5;
/** How long a confirmed code counts for the sensitive changes of its session. */
export const STEP_UP_MINUTES = 5;

const PENDING_AUDIENCE = 'geogate-dashboard-2fa-pending';
const STEP_UP_AUDIENCE = 'geogate-dashboard-2fa-step-up';

/** The changes that ask for the code again (POST paths). */
const STEP_UP_PATHS: readonly RegExp[] = [
  /^\/settings\/password$/,
  /^\/settings\/email$/,
  /^\/settings\/delete$/,
  /^\/settings\/security\/(recovery-codes|disable)$/,
  /^\/(api\/)?keys$/,
  /^\/(api\/)?packages$/,
  /^\/(api\/)?keys\/[^/]+\/rotate$/,
];

/** The cookie names, `__Host-` prefixed like the session's when the dashboard is served over https. */
function names(ctx: AppContext): { pending: string; stepUp: string } {
  const prefix = ctx.secrets.cookies.session.startsWith('__Host-') ? '__Host-' : '';
  return { pending: `${prefix}gg_2fa`, stepUp: `${prefix}gg_stepup` };
}

/** What the half signed-in cookie proves: this account passed its first factor. */
export interface Pending {
  accountId: string;
  jti: string;
  expiresAt: number;
}

/**
 * The first factor passed for an account with the second factor on: set the half signed-in cookie and send the
 * browser to the code page.
 */
export async function beginSecondStep(ctx: AppContext, res: Response, account: Account): Promise<void> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const token = await new SignJWT({ st: credentialStamp(ctx.secrets, account) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(account.id)
    .setAudience(PENDING_AUDIENCE)
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuedAt(now)
    .setExpirationTime(now + PENDING_MINUTES * 60)
    .sign(ctx.secrets.jwtKey);
  setCookie(res, names(ctx).pending, token, PENDING_MINUTES * 60);
  res.redirect(303, '/signin/2fa');
}

/** The half signed-in state of the request and its account (still matching its stamp, not used), or null. */
export async function readPending(
  ctx: AppContext,
  req: Request,
): Promise<{ pending: Pending; account: Account } | null> {
  const token = readCookies(req).get(names(ctx).pending);
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, ctx.secrets.jwtKey, {
      algorithms: ['HS256'],
      audience: PENDING_AUDIENCE,
      currentDate: new Date(ctx.clock.now()),
    });
    const { sub, jti, exp, st } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || !exp || typeof st !== 'string') return null;
    if (await ctx.store.isConsumed(pendingMark(jti), ctx.clock.now())) return null;
    const account = await ctx.store.getAccount(sub);
    if (!account || account.status === 'deleted' || credentialStamp(ctx.secrets, account) !== st) return null;
    return { pending: { accountId: sub, jti, expiresAt: exp * 1000 }, account };
  } catch {
    return null;
  }
}

const pendingMark = (jti: string) => `2fa-pending:${jti}`;

/** Use the half signed-in state once (true the first time) and delete its cookie. */
export async function finishPending(ctx: AppContext, res: Response, pending: Pending): Promise<boolean> {
  clearPending(ctx, res);
  return ctx.store.consumeOnce(pendingMark(pending.jti), pending.expiresAt, ctx.clock.now());
}

/** Delete the half signed-in cookie. */
export function clearPending(ctx: AppContext, res: Response): void {
  setCookie(res, names(ctx).pending, '', 0);
}

/** Record a confirmed code for this session: sensitive changes go through for STEP_UP_MINUTES. */
export async function grantStepUp(ctx: AppContext, res: Response, session: Session): Promise<void> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const token = await new SignJWT({ sid: session.sid })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(STEP_UP_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + STEP_UP_MINUTES * 60)
    .sign(ctx.secrets.jwtKey);
  setCookie(res, names(ctx).stepUp, token, STEP_UP_MINUTES * 60);
}

/** Whether this session confirmed a code within STEP_UP_MINUTES. */
export async function hasStepUp(ctx: AppContext, req: Request, session: Session): Promise<boolean> {
  const token = readCookies(req).get(names(ctx).stepUp);
  if (!token) return false;
  try {
    const { payload } = await jwtVerify(token, ctx.secrets.jwtKey, {
      algorithms: ['HS256'],
      audience: STEP_UP_AUDIENCE,
      currentDate: new Date(ctx.clock.now()),
    });
    return payload['sid'] === session.sid;
  } catch {
    return false;
  }
}

/** The form's fields carried through the code page (everything but the CSRF token and the code). */
function carried(req: Request): [string, string][] {
  const b = (req.body ?? {}) as Record<string, unknown>;
  return Object.entries(b).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== '_csrf' && e[0] !== 'otp',
  );
}

/**
 * The step-up check before the sensitive changes: with the second factor on and no fresh confirmation, the body's
 * `otp` must be a valid code (counted like a sign-in attempt); else a page asks for it (or 403 for the API).
 */
export function stepUp(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || !STEP_UP_PATHS.some((p) => p.test(req.path))) return next();
    const s = res.locals['signed'] as Signed | undefined;
    if (!s) return next();
    check(ctx, req, res, s)
      .then((go) => (go ? next() : undefined))
      .catch(next);
  };
}

/** True: go on to the route. False: the answer was sent (the code page). */
async function check(ctx: AppContext, req: Request, res: Response, s: Signed): Promise<boolean> {
  if (!(await secondFactorOn(ctx, s.account.id))) return true;
  if (await hasStepUp(ctx, req, s.session)) return true;
  const otp = ((req.body ?? {}) as Record<string, unknown>)['otp'];
  let error: DashboardError | null = null;
  if (typeof otp === 'string' && otp.trim() !== '') {
    try {
      await limitSecondFactor(ctx, req, s.account);
      const used = await checkSecondFactor(ctx, s.account.id, otp);
      if (used) {
        await grantStepUp(ctx, res, s.session);
        ctx.accounts.audit(customer(ctx, req, res, s.account.id), 'two_factor.confirmed', {
          account: s.account.id,
          detail: { method: used },
        });
        return true;
      }
      error = wrongCode();
    } catch (err) {
      if (!(err instanceof DashboardError)) throw err;
      error = err;
    }
  }
  if (wantsJson(req)) {
    throw (
      error ??
      new DashboardError(
        'second_factor_required',
        'This change needs your two-factor code: send it again with "otp" (the current code, or a recovery code)',
        'otp',
      )
    );
  }
  if (error?.retryAfter !== undefined) res.setHeader('Retry-After', String(error.retryAfter));
  const page = views.stepUpPage(pageContext(ctx, res), req.originalUrl, carried(req), error?.message);
  res
    .status(error ? error.status : 200)
    .type('html')
    .send(page);
  return false;
}
