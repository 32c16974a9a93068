/**
 * Account recovery and settings (issue 15 item 1): password reset by a one-time e-mailed link (rule set A), change of
 * password (re-authenticated, A), change of e-mail (confirmed from the new mailbox; A re-authenticates), and a JSON
 * export of the account's data. Every link is single-use through the store and void once the password or e-mail
 * changes; a change ends every other session (dashboard/session.ts, credential stamp).
 */
import type { Request, Response, Router } from 'express';
import { hashPassword, verifyPassword } from '../../gateway/accounts/password';
import { requestIdOfResponse } from '../../gateway/net/request-id-middleware';
import { StoreConflict, type Account } from '../../gateway/store/types';
import { ACCOUNT_LINK_MINUTES, type AccountLinkPurpose } from '../account-links';
import { customer } from '../actor';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, preSessionToken, requirePageSession, signed } from '../middleware';
import { beginSecondStep } from '../second-step';
import { credentialStamp, startSession } from '../session';
import { secondFactorOn } from '../totp';
import { limitAttempt } from '../throttle';
import * as v from '../validate';
import type { FormState } from '../views/auth';
import * as views from '../views/settings';
import { exportRoutes } from './export';
import { pageContext } from './pages';

const str = (x: unknown): string => (typeof x === 'string' ? x : '');
const bodyOf = (req: Request): Record<string, unknown> => (req.body ?? {}) as Record<string, unknown>;
const sendHtml = (res: Response, status: number, text: string): void =>
  void res.status(status).type('html').send(text);

/** A refusal shown on its form, or rethrown when it is not the customer's. */
function formState(err: unknown, values: Record<string, string>): { status: number; state: FormState } {
  if (!(err instanceof DashboardError)) throw err;
  return {
    status: err.status,
    state: err.field ? { values, errors: { [err.field]: err.message } } : { values, message: err.message },
  };
}

/** The link of `purpose` for `token` on this dashboard. */
function linkUrl(ctx: AppContext, path: string, token: string): string {
  return `${ctx.config.publicUrl.replace(/\/+$/, '')}${path}?token=${encodeURIComponent(token)}`;
}

/** What an account link e-mail says and where its link leads. */
export interface LinkMail {
  purpose: AccountLinkPurpose;
  /** The address the link is for and goes to (default: the account's own). */
  to?: string;
  subject: string;
  lines: string[];
  /** The dashboard path that redeems it. */
  path: string;
}

/**
 * Queue the e-mail of a single-use link of `mail.purpose` for `account`. The link is issued by the queued job, so
 * the request does the same work whether or not it mails (no enumeration by time); a failed send is logged without
 * the link and retried with the same link.
 */
export async function mailAccountLink(
  ctx: AppContext,
  res: Response,
  account: Account,
  mail: LinkMail,
): Promise<void> {
  const to = mail.to ?? account.email;
  const stamp = credentialStamp(ctx.secrets, account);
  const minutes = ACCOUNT_LINK_MINUTES[mail.purpose];
  const expiry = minutes >= 120 ? `${minutes / 60} hours` : `${minutes} minutes`;
  let link: string | undefined;
  ctx.mailQueue.enqueue({
    purpose: mail.purpose,
    requestId: requestIdOfResponse(res),
    async send() {
      link ??= linkUrl(ctx, mail.path, await ctx.accountLinks.issue(mail.purpose, account.id, to, stamp));
      const text = ['Hello,', '', ...mail.lines, `It works once and expires in ${expiry}:`, '', link, ''];
      await ctx.mailer.sendAccountLink(to, mail.subject, text.join('\n'), link);
    },
  });
  return Promise.resolve();
}

/** The current password must match (settings forms of rule set A). */
export async function requirePassword(account: Account, given: unknown, field = 'current'): Promise<void> {
  if (!account.passwordHash || !(await verifyPassword(str(given), account.passwordHash))) {
    throw new DashboardError('invalid_credentials', 'The current password is wrong', field);
  }
}

/** Register the recovery and settings routes. */
export function accountRoutes(router: Router, ctx: AppContext): void {
  const { rules, store, clock } = ctx;
  const passwords = rules.signupNeedsNameAndPassword;

  if (passwords) passwordResetRoutes(router, ctx);

  const settings = (res: Response, status: number, forms: views.SettingsForms = {}) =>
    sendHtml(res, status, views.settingsPage(pageContext(ctx, res), rules, forms));

  router.get(
    '/settings',
    requirePageSession,
    handle(async (req, res) => {
      const done = req.query['done'];
      const message =
        done === 'password'
          ? 'Password changed. Your other sessions are signed out.'
          : done === 'email'
            ? 'E-mail address changed.'
            : done === 'verified'
              ? 'E-mail address confirmed. You can now create keys and top up.'
              : undefined;
      settings(res, 200, message ? { message } : {});
    }),
  );

  if (passwords) {
    router.post(
      '/settings/password',
      requirePageSession,
      handle(async (req, res) => {
        const { account } = signed(res);
        const b = bodyOf(req);
        try {
          await limitAttempt(ctx, req, account.email);
          await requirePassword(account, b['current']);
          const password = v.password(b['password']);
          await store.setPasswordHash(account.id, await hashPassword(password));
          const fresh = (await store.getAccount(account.id)) ?? account;
          await startSession(res, ctx.secrets, clock, fresh);
          ctx.accounts.audit(customer(ctx, req, res, account.id), 'password.changed', {
            account: account.id,
          });
          res.redirect(303, '/settings?done=password');
        } catch (err) {
          const f = formState(err, {});
          settings(res, f.status, { password: f.state });
        }
      }),
    );
  }

  router.post(
    '/settings/email',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      const b = bodyOf(req);
      const values = { email: str(b['email']) };
      try {
        await limitAttempt(ctx, req, account.email);
        // Its own field name: the settings page holds two password checks, and ids must be unique (WCAG 4.1.1).
        if (passwords) await requirePassword(account, b['email_current'], 'email_current');
        const email = v.email(b['email']);
        if (email.toLowerCase() === account.email.toLowerCase()) {
          throw new DashboardError('invalid_parameter', 'This is already your e-mail address', 'email');
        }
        // The same answer whether or not the address is taken (no enumeration); a taken one gets no link.
        const owner = await store.findAccountByEmail(email);
        if (!owner) {
          await mailAccountLink(ctx, res, account, {
            purpose: 'email-change',
            to: email,
            subject: 'Confirm your new e-mail address',
            lines: [
              `Open this link to use ${email} for your geocoding account (${account.email} until then).`,
            ],
            path: '/settings/email/confirm',
          });
        }
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'email.change_requested', {
          account: account.id,
        });
        settings(res, 200, {
          message: `If ${email} can be used, a confirmation link is on its way to it. Your address changes when you open it.`,
        });
      } catch (err) {
        const f = formState(err, values);
        settings(res, f.status, { email: f.state });
      }
    }),
  );

  router.get(
    '/settings/email/confirm',
    handle(async (req, res) => {
      const token = str(req.query['token']);
      const claim = await ctx.accountLinks.check(token, 'email-change');
      if (!claim)
        return sendHtml(
          res,
          400,
          views.accountLinkInvalidPage(ctx.brand, 'E-mail confirmation', '/settings'),
        );
      sendHtml(
        res,
        200,
        views.emailConfirmPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email),
      );
    }),
  );

  router.post(
    '/settings/email/confirm',
    handle(async (req, res) => {
      const invalid = () =>
        sendHtml(res, 400, views.accountLinkInvalidPage(ctx.brand, 'E-mail confirmation', '/settings'));
      const used = await ctx.accountLinks.redeemAccount(str(bodyOf(req)['token']), 'email-change');
      if (!used) return invalid();
      const { claim, account } = used;
      let changed: Account;
      try {
        changed = await store.setEmail(account.id, claim.email);
      } catch (err) {
        if (err instanceof StoreConflict && err.reason === 'email_taken') return invalid();
        throw err;
      }
      // The link was opened from the new mailbox: the address is proven (an unverified sign-up is verified by it).
      if (changed.emailVerifiedAt === null) changed = await store.markEmailVerified(account.id, clock.now());
      ctx.accounts.audit(customer(ctx, req, res, account.id), 'email.changed', { account: account.id });
      // A link from a mailbox is one factor: with the second factor on, the code is asked before a session.
      if (await secondFactorOn(ctx, account.id)) return beginSecondStep(ctx, res, changed);
      await startSession(res, ctx.secrets, clock, changed);
      res.redirect(303, '/settings?done=email');
    }),
  );

  exportRoutes(router, ctx);
}

/** Rule set A: "Forgot your password?" and the reset link. */
function passwordResetRoutes(router: Router, ctx: AppContext): void {
  const { store, clock } = ctx;
  const minutes = ACCOUNT_LINK_MINUTES['password-reset'];

  router.get('/password/forgot', (req, res) => {
    sendHtml(res, 200, views.forgotPage(ctx.brand, preSessionToken(ctx, req, res)));
  });

  router.post(
    '/password/forgot',
    handle(async (req, res) => {
      const values = { email: str(bodyOf(req)['email']) };
      try {
        await limitAttempt(ctx, req, values.email || null);
        const email = v.email(bodyOf(req)['email']);
        const account = await store.findAccountByEmail(email);
        // The same answer whether the address has an account or not (no enumeration).
        if (account?.passwordHash) {
          await mailAccountLink(ctx, res, account, {
            purpose: 'password-reset',
            subject: 'Reset your password',
            lines: [
              'Open this link to choose a new password for your geocoding account.',
              'If you did not ask for it, ignore this e-mail: your password stays as it is.',
            ],
            path: '/password/reset',
          });
          ctx.accounts.audit(customer(ctx, req, res, account.id), 'password.reset_requested', {
            account: account.id,
          });
        }
        sendHtml(res, 200, views.resetSentPage(ctx.brand, email, minutes));
      } catch (err) {
        const f = formState(err, values);
        if (err instanceof DashboardError && err.retryAfter !== undefined)
          res.setHeader('Retry-After', String(err.retryAfter));
        sendHtml(res, f.status, views.forgotPage(ctx.brand, preSessionToken(ctx, req, res), f.state));
      }
    }),
  );

  router.get(
    '/password/reset',
    handle(async (req, res) => {
      const token = str(req.query['token']);
      const claim = await ctx.accountLinks.check(token, 'password-reset');
      if (!claim)
        return sendHtml(
          res,
          400,
          views.accountLinkInvalidPage(ctx.brand, 'Password reset', '/password/forgot'),
        );
      sendHtml(res, 200, views.resetPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email));
    }),
  );

  router.post(
    '/password/reset',
    handle(async (req, res) => {
      const b = bodyOf(req);
      const token = str(b['token']);
      const invalid = () =>
        sendHtml(res, 400, views.accountLinkInvalidPage(ctx.brand, 'Password reset', '/password/forgot'));
      // The password is checked before the link is used, so a too-short one does not burn the link.
      const claim = await ctx.accountLinks.check(token, 'password-reset');
      if (!claim) return invalid();
      let password: string;
      try {
        password = v.password(b['password']);
      } catch (err) {
        const f = formState(err, {});
        return sendHtml(
          res,
          f.status,
          views.resetPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email, f.state),
        );
      }
      const used = await ctx.accountLinks.redeemAccount(token, 'password-reset');
      if (!used) return invalid();
      const { account } = used;
      await store.setPasswordHash(account.id, await hashPassword(password));
      // The link came from the mailbox: an unverified sign-up is proven by it as by the verification link.
      if (account.emailVerifiedAt === null) await store.markEmailVerified(account.id, clock.now());
      const fresh = (await store.getAccount(account.id)) ?? account;
      ctx.accounts.audit(customer(ctx, req, res, account.id), 'password.reset', { account: account.id });
      if (await secondFactorOn(ctx, account.id)) return beginSecondStep(ctx, res, fresh);
      await startSession(res, ctx.secrets, clock, fresh);
      res.redirect(303, '/?reset=1');
    }),
  );
}
