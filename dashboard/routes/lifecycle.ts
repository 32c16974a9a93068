/**
 * Account lifecycle (issue 15 item 1): e-mail verification at sign-up (rule set A; B's accounts are made by an
 * e-mailed link, so their mailbox is proven) and account deletion (both rule sets). Links are single-use through the
 * store's marks, expire, and are void once the password or e-mail changes (credential stamp).
 */
import type { Request, Response, Router } from 'express';
import { requestIdOfResponse } from '../../gateway/net/request-id-middleware';
import type { Account } from '../../gateway/store/types';
import { ACCOUNT_LINK_MINUTES } from '../account-links';
import { customer } from '../actor';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, preSessionToken, requirePageSession, signed, type Signed } from '../middleware';
import { endSession } from '../session';
import { limitAttempt } from '../throttle';
import type { FormState } from '../views/auth';
import * as views from '../views/lifecycle';
import { accountLinkInvalidPage } from '../views/settings';
import { mailAccountLink, requirePassword } from './account';
import { pageContext } from './pages';

/** Verification e-mails one account may ask for per window (the one sent at sign-up not counted). */
export const VERIFY_RESEND_LIMIT = { count: 3, windowMs: 60 * 60_000 };

/** The e-mail a deleted account keeps: a reserved domain (RFC 2606), so the real address can sign up again. */
export function tombstoneEmail(accountId: string): string {
  return `deleted-${accountId}@deleted.invalid`;
}

const str = (x: unknown): string => (typeof x === 'string' ? x : '');
const bodyOf = (req: Request): Record<string, unknown> => (req.body ?? {}) as Record<string, unknown>;
const sendHtml = (res: Response, status: number, text: string): void =>
  void res.status(status).type('html').send(text);

/** Mail the verification link of the account's current address (sign-up and "send it again"). */
export async function sendVerification(
  ctx: AppContext,
  req: Request,
  res: Response,
  account: Account,
): Promise<void> {
  await mailAccountLink(ctx, res, account, {
    purpose: 'email-verify',
    subject: 'Confirm your e-mail address',
    lines: [
      'Open this link to confirm the e-mail address of your new geocoding account.',
      'Until then you can look around the dashboard, but not create keys or top up.',
    ],
    path: '/verify/email',
  });
  ctx.accounts.audit(customer(ctx, req, res, account.id), 'email.verification_sent', { account: account.id });
}

/** Register the verification and deletion routes. */
export function lifecycleRoutes(router: Router, ctx: AppContext): void {
  verificationRoutes(router, ctx);
  deletionRoutes(router, ctx);
}

function verificationRoutes(router: Router, ctx: AppContext): void {
  const { store, clock } = ctx;
  const invalid = (res: Response) =>
    sendHtml(res, 400, accountLinkInvalidPage(ctx.brand, 'E-mail verification', '/settings'));

  router.post(
    '/verify/resend',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      if (account.emailVerifiedAt !== null) return void res.redirect(303, '/settings');
      const { count, windowMs } = VERIFY_RESEND_LIMIT;
      const now = clock.now();
      const hit = await store.hitWindow(`verify-resend:${account.id}`, windowMs, now);
      if (hit.count > count) {
        const wait = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
        throw new DashboardError(
          'rate_limited',
          `The link was sent ${count} times this hour. Try again in ${Math.ceil(wait / 60)} minutes.`,
          undefined,
          wait,
        );
      }
      await sendVerification(ctx, req, res, account);
      sendHtml(res, 200, views.verificationSentPage(pageContext(ctx, res), account.email));
    }),
  );

  router.get(
    '/verify/email',
    handle(async (req, res) => {
      const token = str(req.query['token']);
      const claim = await ctx.accountLinks.check(token, 'email-verify');
      if (!claim) return invalid(res);
      sendHtml(
        res,
        200,
        views.verifyConfirmPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email),
      );
    }),
  );

  router.post(
    '/verify/email',
    handle(async (req, res) => {
      const used = await ctx.accountLinks.redeemAccount(str(bodyOf(req)['token']), 'email-verify');
      if (!used) return invalid(res);
      const { account } = used;
      await store.markEmailVerified(account.id, clock.now());
      ctx.accounts.audit(customer(ctx, req, res, account.id), 'email.verified', { account: account.id });
      const s = res.locals['signed'] as Signed | undefined;
      if (s?.account.id === account.id) return void res.redirect(303, '/settings?done=verified');
      sendHtml(res, 200, views.verifiedPage(ctx.brand, account.email));
    }),
  );
}

/** Delete the account now, end this session, and say goodbye (the export was offered on the page before). */
async function deleteNow(ctx: AppContext, req: Request, res: Response, account: Account): Promise<void> {
  const { forfeited } = await ctx.store.deleteAccount(
    account.id,
    tombstoneEmail(account.id),
    ctx.clock.now(),
  );
  ctx.accounts.audit(customer(ctx, req, res, account.id), 'account.deleted', {
    account: account.id,
    detail: { forfeited },
  });
  ctx.logger.info(
    { accountId: account.id, requestId: requestIdOfResponse(res) },
    'dashboard: account deleted',
  );
  // Every other session already failed its stamp (e-mail and password are gone); this one is marked ended too.
  const s = res.locals['signed'] as Signed | undefined;
  await endSession(res, ctx.store, ctx.clock, s?.session ?? null, ctx.secrets.cookies.session);
  sendHtml(res, 200, views.deletedPage(ctx.brand));
}

function deletionRoutes(router: Router, ctx: AppContext): void {
  const { rules } = ctx;
  const passwords = rules.signupNeedsNameAndPassword;
  const minutes = ACCOUNT_LINK_MINUTES['account-delete'];
  const deletePage = (res: Response, status: number, s: FormState = {}) =>
    sendHtml(res, status, views.deletePage(pageContext(ctx, res), passwords, minutes, s));
  const invalid = (res: Response) =>
    sendHtml(res, 400, accountLinkInvalidPage(ctx.brand, 'Account deletion', '/settings/delete'));

  router.get(
    '/settings/delete',
    requirePageSession,
    handle(async (_req, res) => deletePage(res, 200)),
  );

  router.post(
    '/settings/delete',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      try {
        await limitAttempt(ctx, req, account.email);
        if (bodyOf(req)['confirm'] !== 'yes') {
          throw new DashboardError('invalid_parameter', 'Tick the box to confirm the deletion', 'confirm');
        }
        if (passwords) {
          // A: the password re-authenticates; the account goes at once.
          await requirePassword(account, bodyOf(req)['current']);
          return await deleteNow(ctx, req, res, account);
        }
        // B: no password; a fresh link to the mailbox confirms it is the owner.
        await mailAccountLink(ctx, res, account, {
          purpose: 'account-delete',
          subject: 'Confirm the deletion of your account',
          lines: [
            'Open this link to delete your geocoding account for good: its keys stop working and the balance is forfeited.',
            'If you did not ask for it, ignore this e-mail: nothing changes.',
          ],
          path: '/settings/delete/confirm',
        });
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'account.deletion_requested', {
          account: account.id,
        });
        sendHtml(res, 200, views.deletionLinkSentPage(pageContext(ctx, res), account.email, minutes));
      } catch (err) {
        if (!(err instanceof DashboardError)) throw err;
        if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
        deletePage(
          res,
          err.status,
          err.field ? { errors: { [err.field]: err.message } } : { message: err.message },
        );
      }
    }),
  );

  router.get(
    '/settings/delete/confirm',
    handle(async (req, res) => {
      const token = str(req.query['token']);
      const claim = await ctx.accountLinks.check(token, 'account-delete');
      if (!claim) return invalid(res);
      sendHtml(
        res,
        200,
        views.deleteConfirmPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email),
      );
    }),
  );

  router.post(
    '/settings/delete/confirm',
    handle(async (req, res) => {
      const used = await ctx.accountLinks.redeemAccount(str(bodyOf(req)['token']), 'account-delete');
      if (!used) return invalid(res);
      await deleteNow(ctx, req, res, used.account);
    }),
  );
}
