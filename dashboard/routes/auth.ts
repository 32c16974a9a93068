/**
 * Sign-up and sign-in. Rule set A: e-mail, name, password (scrypt, gateway/accounts/password.ts). Rule set B: e-mail
 * only and a one-time link by e-mail. Attempts are limited per client address and per (e-mail, address) (429,
 * dashboard/throttle.ts, shared through the store).
 */
import type { Request, Response, Router } from 'express';
import { hashPassword, verifyPassword } from '../../gateway/accounts/password';
import { StoreConflict } from '../../gateway/store/types';
import { requestIdOfResponse } from '../../gateway/net/request-id-middleware';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { customer } from '../actor';
import { LINK_MINUTES } from '../magic-link';
import { handle, preSessionToken, type Signed } from '../middleware';
import { beginSecondStep } from '../second-step';
import { endSession, startSession } from '../session';
import { secondFactorOn } from '../totp';
import { limitAttempt } from '../throttle';
import { sendVerification } from './lifecycle';
import * as v from '../validate';
import * as views from '../views/auth';

/** A hash to verify against when the e-mail is unknown, so both cases cost the same time. */
let dummyHash: Promise<string> | null = null;

function body(req: Request): Record<string, unknown> {
  return (req.body ?? {}) as Record<string, unknown>;
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** A form refusal shown on the form again (429 keeps its status and Retry-After). */
function refuse(
  res: Response,
  err: unknown,
  render: (s: views.FormState) => string,
  values: Record<string, string>,
): void {
  if (!(err instanceof DashboardError)) throw err;
  if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
  const state: views.FormState = err.field
    ? { values, errors: { [err.field]: err.message } }
    : { values, message: err.message };
  res.status(err.status).type('html').send(render(state));
}

/** Register the sign-up, sign-in, link and sign-out routes. */
export function authRoutes(router: Router, ctx: AppContext): void {
  const { rules, store, clock } = ctx;
  const passwords = rules.signupNeedsNameAndPassword;

  router.get('/signup', (req, res) => {
    if (res.locals['signed']) return res.redirect(303, '/');
    res.type('html').send(views.signUpPage(ctx.brand, rules, preSessionToken(ctx, req, res)));
  });

  router.post(
    '/signup',
    handle(async (req, res) => {
      const b = body(req);
      const values = { email: str(b['email']), name: str(b['name']) };
      const render = (s: views.FormState) =>
        views.signUpPage(ctx.brand, rules, preSessionToken(ctx, req, res), s);
      try {
        await limitAttempt(ctx, req, passwords ? null : str(b['email']) || null);
        const email = v.email(b['email']);
        if (!passwords) return await sendLink(ctx, res, email, true);
        const name = v.name(b['name']);
        const password = v.password(b['password']);
        // Unverified until the link mailed below is opened (docs/dashboard.md, "E-mail verification at sign-up").
        const passwordHash = await hashPassword(password);
        const account = await store
          .createAccount(
            { email, name, passwordHash, ...(ctx.mailReaches ? { emailVerifiedAt: null } : {}) },
            clock.now(),
          )
          .catch((err: unknown) => {
            if (err instanceof StoreConflict && err.reason === 'email_taken') return null;
            throw err;
          });
        if (!account) return await signUpTaken(ctx, res, email, render, values);
        await startSession(res, ctx.secrets, clock, account);
        ctx.logger.info(
          { accountId: account.id, requestId: requestIdOfResponse(res) },
          'dashboard: account created',
        );
        // A mail failure does not undo the sign-up: the banner of every page offers to send the link again.
        if (account.emailVerifiedAt === null) await sendVerification(ctx, req, res, account);
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'account.created', { account: account.id });
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'session.signed_in', { account: account.id });
        res.redirect(303, '/?welcome=1');
      } catch (err) {
        refuse(res, err, render, values);
      }
    }),
  );

  router.get('/signin', (req, res) => {
    if (res.locals['signed']) return res.redirect(303, '/');
    res.type('html').send(views.signInPage(ctx.brand, rules, preSessionToken(ctx, req, res)));
  });

  router.post(
    '/signin',
    handle(async (req, res) => {
      const b = body(req);
      const values = { email: str(b['email']) };
      const render = (s: views.FormState) =>
        views.signInPage(ctx.brand, rules, preSessionToken(ctx, req, res), s);
      try {
        await limitAttempt(ctx, req, str(b['email']) || null);
        const email = v.email(b['email']);
        if (!passwords) return await sendLink(ctx, res, email, false);
        const account = await store.findAccountByEmail(email);
        dummyHash ??= hashPassword('not-a-password-of-anyone');
        const ok = await verifyPassword(str(b['password']), account?.passwordHash ?? (await dummyHash));
        if (!account || !account.passwordHash || !ok) {
          throw new DashboardError('invalid_credentials', 'E-mail address or password is wrong', 'password');
        }
        if (await secondFactorOn(ctx, account.id)) return await beginSecondStep(ctx, res, account);
        await startSession(res, ctx.secrets, clock, account);
        ctx.accounts.audit(customer(ctx, req, res, account.id), 'session.signed_in', { account: account.id });
        res.redirect(303, '/');
      } catch (err) {
        refuse(res, err, render, values);
      }
    }),
  );

  router.get(
    '/signin/link',
    handle(async (req, res) => {
      const token = str(req.query['token']);
      const claim = token ? await ctx.links.check(token) : null;
      if (!claim) return void res.status(400).type('html').send(views.linkInvalidPage(ctx.brand));
      res
        .type('html')
        .send(views.linkConfirmPage(ctx.brand, token, preSessionToken(ctx, req, res), claim.email));
    }),
  );

  router.post(
    '/signin/link',
    handle(async (req, res) => {
      const claim = await ctx.links.redeem(str(body(req)['token']));
      if (!claim) return void res.status(400).type('html').send(views.linkInvalidPage(ctx.brand));
      let account = await store.findAccountByEmail(claim.email);
      if (!account && claim.signup) {
        account = await store
          .createAccount({ email: claim.email }, clock.now())
          .catch(async (err: unknown) => {
            // Two sign-up links for one address: the second finds the account the first created.
            if (err instanceof StoreConflict && err.reason === 'email_taken')
              return store.findAccountByEmail(claim.email);
            throw err;
          });
        if (account) {
          ctx.logger.info(
            { accountId: account.id, requestId: requestIdOfResponse(res) },
            'dashboard: account created',
          );
          ctx.accounts.audit(customer(ctx, req, res, account.id), 'account.created', { account: account.id });
        }
      }
      if (!account) return void res.status(400).type('html').send(views.linkInvalidPage(ctx.brand));
      // The mailed link is one factor: with the second factor on, the code is asked next.
      if (await secondFactorOn(ctx, account.id)) return beginSecondStep(ctx, res, account);
      await startSession(res, ctx.secrets, clock, account);
      ctx.accounts.audit(customer(ctx, req, res, account.id), 'session.signed_in', { account: account.id });
      res.redirect(303, '/');
    }),
  );

  router.post(
    '/signout',
    handle(async (req, res) => {
      const s = res.locals['signed'] as Signed | undefined;
      await endSession(res, store, clock, s?.session ?? null, ctx.secrets.cookies.session);
      if (s)
        ctx.accounts.audit(customer(ctx, req, res, s.account.id), 'session.signed_out', {
          account: s.account.id,
        });
      res.redirect(303, '/signin');
    }),
  );
}

/**
 * A: sign-up with an address that has an account. Where mail reaches, the answer names no account (a neutral page,
 * the same words as a sent link) and the owner is told by e-mail how to sign in or reset the password; without mail
 * nothing could tell the owner, so the form says the address is taken (docs/decisions.md).
 */
async function signUpTaken(
  ctx: AppContext,
  res: Response,
  email: string,
  render: (s: views.FormState) => string,
  values: Record<string, string>,
): Promise<void> {
  if (!ctx.mailReaches) {
    const err = new DashboardError(
      'email_taken',
      'This e-mail address is already registered; sign in instead',
      'email',
    );
    return refuse(res, err, render, values);
  }
  const owner = await ctx.store.findAccountByEmail(email);
  if (owner) {
    const base = ctx.config.publicUrl.replace(/\/+$/, '');
    const text = [
      'Hello,',
      '',
      `Someone, perhaps you, tried to create a geocoding account with ${owner.email}. It already has one.`,
      '',
      `Sign in: ${base}/signin`,
      `Forgot your password? ${base}/password/forgot`,
      '',
      'If it was not you, ignore this e-mail: nothing has changed.',
      '',
    ].join('\n');
    ctx.mailQueue.enqueue({
      purpose: 'sign-up-taken',
      requestId: requestIdOfResponse(res),
      send: () => ctx.mailer.sendNotice(owner.email, 'You already have an account', text),
    });
  }
  res.type('html').send(views.signUpSentPage(ctx.brand, email));
}

/**
 * B: e-mail a one-time link. The answer and its time are the same whether the address has an account or not (no
 * enumeration: the mail is queued): sign-in links go only to existing accounts, sign-up links to new addresses (an
 * existing one gets a sign-in link).
 */
async function sendLink(ctx: AppContext, res: Response, email: string, signup: boolean): Promise<void> {
  const account = await ctx.store.findAccountByEmail(email);
  if (account || signup) {
    const to = account ? account.email : email;
    const newAccount = signup && !account;
    let link: string | undefined;
    // The link is issued by the queued job: the request does the same work whether or not it mails.
    ctx.mailQueue.enqueue({
      purpose: 'sign-in-link',
      requestId: requestIdOfResponse(res),
      async send() {
        link ??= `${ctx.config.publicUrl.replace(/\/+$/, '')}/signin/link?token=${encodeURIComponent(await ctx.links.issue(to, newAccount))}`;
        await ctx.mailer.sendSignInLink(to, link, LINK_MINUTES);
      },
    });
  }
  res.type('html').send(views.linkSentPage(ctx.brand, email, LINK_MINUTES));
}
