/**
 * Two-factor authentication (TOTP) for both rule sets: the Security settings page (set up, confirm, new recovery
 * codes, turn off) and the sign-in's second step (/signin/2fa). What asks for the code again is in
 * dashboard/second-step.ts; the codes themselves in dashboard/totp.ts.
 */
import type { Request, Response, Router } from 'express';
import { requestIdOfResponse } from '../../gateway/net/request-id-middleware';
import type { Account } from '../../gateway/store/types';
import { customer } from '../actor';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { handle, preSessionToken, requirePageSession, signed } from '../middleware';
import { clearPending, finishPending, grantStepUp, readPending } from '../second-step';
import { startSession } from '../session';
import {
  checkSecondFactor,
  codeStep,
  limitSecondFactor,
  newRecoveryCodes,
  newTotpSecret,
  normaliseRecoveryCode,
  openSecret,
  qrDataUrl,
  recoveryHash,
  sealSecret,
  totpOf,
  wrongCode,
} from '../totp';
import * as views from '../views/security';
import { pageContext } from './pages';

const send = (res: Response, status: number, body: string): void =>
  void res.status(status).type('html').send(body);
const otpOf = (req: Request): string => {
  const v = ((req.body ?? {}) as Record<string, unknown>)['otp'];
  return typeof v === 'string' ? v : '';
};

/** Codes for the customer and their hashes for the store. */
function recoveryCodes(ctx: AppContext): { codes: string[]; hashes: string[] } {
  const codes = newRecoveryCodes();
  return { codes, hashes: codes.map((c) => recoveryHash(ctx.pepper, normaliseRecoveryCode(c) as string)) };
}

/** Tell the owner by e-mail that the second factor changed (queued like every mail of a request). */
function tellOwner(ctx: AppContext, res: Response, account: Account, on: boolean): void {
  const text = [
    'Hello,',
    '',
    on
      ? 'Two-factor authentication was turned on for your geocoding account. Signing in now asks for a code from your authenticator app.'
      : 'Two-factor authentication was turned off for your geocoding account.',
    '',
    'If it was not you, sign in, change your password (or your e-mail address) and contact support.',
    '',
  ].join('\n');
  ctx.mailQueue.enqueue({
    purpose: on ? 'two-factor-on' : 'two-factor-off',
    requestId: requestIdOfResponse(res),
    send: () =>
      ctx.mailer.sendNotice(
        account.email,
        on ? 'Two-factor authentication is on' : 'Two-factor authentication is off',
        text,
      ),
  });
}

/** Register the Security page and the sign-in's second step. */
export function securityRoutes(router: Router, ctx: AppContext): void {
  const { store, clock } = ctx;
  const me = (req: Request, res: Response) => customer(ctx, req, res, signed(res).account.id);

  const securityView = async (
    res: Response,
    status: number,
    note: { message?: string; error?: string } = {},
  ) => {
    const { account } = signed(res);
    const state = await store.totpState(account.id);
    const on = state !== null && state.enabledAt !== null;
    send(
      res,
      status,
      views.securityPage(pageContext(ctx, res), {
        enabledAt: on ? new Date(state.enabledAt as number).toISOString() : null,
        codesLeft: on ? await store.recoveryCodesLeft(account.id) : 0,
        ...note,
      }),
    );
  };

  /** The enrolment page of the account's pending secret. */
  const enrolView = async (res: Response, status: number, sealed: string, error?: string) => {
    const { account } = signed(res);
    const secret = openSecret(ctx.pepper, account.id, sealed);
    const uri = totpOf(secret, ctx.brand.productName, account.email).toString();
    send(res, status, views.enrolPage(pageContext(ctx, res), { qr: qrDataUrl(uri), secret, error }));
  };

  router.get(
    '/settings/security',
    requirePageSession,
    handle(async (req, res) => {
      const done = req.query['done'];
      await securityView(res, 200, done === 'off' ? { message: 'Two-factor authentication is off.' } : {});
    }),
  );

  router.post(
    '/settings/security/setup',
    requirePageSession,
    handle(async (_req, res) => {
      const { account } = signed(res);
      const sealed = sealSecret(ctx.pepper, account.id, newTotpSecret());
      if (!(await store.beginTotp(account.id, sealed, clock.now())))
        return securityView(res, 409, { error: 'Two-factor authentication is already on.' });
      await enrolView(res, 200, sealed);
    }),
  );

  router.post(
    '/settings/security/enable',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      const state = await store.totpState(account.id);
      if (!state) return void res.redirect(303, '/settings/security');
      if (state.enabledAt !== null)
        return securityView(res, 409, { error: 'Two-factor authentication is already on.' });
      try {
        await limitSecondFactor(ctx, req, account);
        const code = otpOf(req).replace(/\s/g, '');
        const step = /^\d{6}$/.test(code)
          ? codeStep(openSecret(ctx.pepper, account.id, state.secret), code, clock.now())
          : null;
        if (step === null) throw wrongCode();
        const { codes, hashes } = recoveryCodes(ctx);
        if (!(await store.enableTotp(account.id, step, hashes, clock.now())))
          return securityView(res, 409, { error: 'Two-factor authentication is already on.' });
        ctx.accounts.audit(me(req, res), 'two_factor.enabled', { account: account.id });
        tellOwner(ctx, res, account, true);
        // The confirming code proves the factor for this session too: the next few minutes need no other code.
        await grantStepUp(ctx, res, signed(res).session);
        send(res, 200, views.recoveryCodesPage(pageContext(ctx, res), codes, true));
      } catch (err) {
        if (!(err instanceof DashboardError)) throw err;
        if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
        await enrolView(res, err.status, state.secret, err.message);
      }
    }),
  );

  router.post(
    '/settings/security/recovery-codes',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      const state = await store.totpState(account.id);
      if (!state || state.enabledAt === null) return void res.redirect(303, '/settings/security');
      const { codes, hashes } = recoveryCodes(ctx);
      await store.replaceRecoveryCodes(account.id, hashes, clock.now());
      ctx.accounts.audit(me(req, res), 'two_factor.recovery_codes_renewed', { account: account.id });
      send(res, 200, views.recoveryCodesPage(pageContext(ctx, res), codes, false));
    }),
  );

  router.post(
    '/settings/security/disable',
    requirePageSession,
    handle(async (req, res) => {
      const { account } = signed(res);
      if (await store.disableTotp(account.id)) {
        ctx.accounts.audit(me(req, res), 'two_factor.disabled', { account: account.id });
        tellOwner(ctx, res, account, false);
      }
      res.redirect(303, '/settings/security?done=off');
    }),
  );

  router.get(
    '/signin/2fa',
    handle(async (req, res) => {
      const half = await readPending(ctx, req);
      if (!half) return send(res, 400, views.secondStepExpiredPage(ctx.brand));
      send(res, 200, views.secondStepPage(ctx.brand, preSessionToken(ctx, req, res), half.account.email));
    }),
  );

  router.post(
    '/signin/2fa',
    handle(async (req, res) => {
      const half = await readPending(ctx, req);
      if (!half) {
        clearPending(ctx, res);
        return send(res, 400, views.secondStepExpiredPage(ctx.brand));
      }
      const { account, pending } = half;
      try {
        await limitSecondFactor(ctx, req, account);
        const used = await checkSecondFactor(ctx, account.id, otpOf(req));
        if (!used) throw wrongCode();
        if (!(await finishPending(ctx, res, pending)))
          return send(res, 400, views.secondStepExpiredPage(ctx.brand));
        await startSession(res, ctx.secrets, clock, account);
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'session.signed_in', {
          account: account.id,
          detail: { secondFactor: used },
        });
        res.redirect(303, '/');
      } catch (err) {
        if (!(err instanceof DashboardError)) throw err;
        if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
        send(
          res,
          err.status,
          views.secondStepPage(ctx.brand, preSessionToken(ctx, req, res), account.email, err.message),
        );
      }
    }),
  );
}
