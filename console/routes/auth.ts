/** Sign-in (an operator's name and password, or the admin token) and sign-out, throttled like the dashboard's. */
import type { Request, Response, Router } from 'express';
import { handle, preSessionToken } from '../../dashboard/middleware';
import { endSession, startSession } from '../../dashboard/session';
import { limitAttempt } from '../../dashboard/throttle';
import { hashPassword, verifyPassword } from '../../gateway/accounts/password';
import type { ConsoleContext } from '../context';
import { operatorActor } from '../context';
import { isAdminToken, signedOperator, tokenOperator } from '../session';
import { BASE } from '../views/layout';
import { signinPage } from '../views/pages';

const text = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;

let decoyHash: Promise<string> | null = null;
/** A real hash to verify against when the name is unknown, made once. */
function decoy(): Promise<string> {
  decoyHash ??= hashPassword('decoy password of no operator');
  return decoyHash;
}

/** The sign-in routes. */
export function authRoutes(router: Router, ctx: ConsoleContext): void {
  router.get(
    '/signin',
    handle(async (req, res) => {
      if (signedOperator(res)) return void res.redirect(303, `${BASE}/`);
      res.type('html').send(signinPage(preSessionToken(ctx, req, res), null));
    }),
  );

  router.post(
    '/signin',
    handle(async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = text(body['token'], 512);
      const name = text(body['name'], 64);
      await limitAttempt(ctx, req, token !== null ? 'console admin token' : `console ${name ?? ''}`);
      let op = null;
      if (token !== null) {
        if (isAdminToken(token, ctx.adminToken)) op = tokenOperator(ctx.secrets, ctx.adminToken);
      } else {
        const password = text(body['password'], 1024);
        const found = name !== null ? await ctx.store.findOperator(name) : null;
        // The same work whether or not the name exists: the answer does not tell which.
        const ok =
          password !== null && (await verifyPassword(password, found?.passwordHash ?? (await decoy())));
        if (found && found.disabledAt === null && found.passwordHash !== null && ok) op = found;
      }
      if (op === null) {
        res
          .status(401)
          .type('html')
          .send(signinPage(preSessionToken(ctx, req, res), 'Those credentials are not valid.', name ?? ''));
        return;
      }
      const session = await startSession(res, ctx.secrets, ctx.clock, {
        id: op.id,
        email: op.name,
        passwordHash: op.passwordHash,
      });
      res.locals['signed'] = { session, operator: op };
      ctx.accounts.audit(operatorActor(req, res), 'operator.signed_in', {
        account: '-',
        object: op.id,
        detail: { role: op.role },
      });
      res.redirect(303, `${BASE}/`);
    }),
  );

  router.post(
    '/signout',
    handle(async (req, res) => {
      const s = signedOperator(res);
      if (s)
        ctx.accounts.audit(operatorActor(req, res), 'operator.signed_out', {
          account: '-',
          object: s.operator.id,
        });
      await endSession(res, ctx.store, ctx.clock, s?.session ?? null, ctx.secrets.cookies.session);
      res.redirect(303, `${BASE}/signin`);
    }),
  );
}
