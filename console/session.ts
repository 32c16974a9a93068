/**
 * Operator sessions: the dashboard's signed session cookie (dashboard/session.ts: HS256 JWT, sign-out marked in the
 * store so a copied cookie stops on every instance) under the console's own names and secret, derived from the admin
 * token. The built-in operator of the admin token is `admin-token` (role admin); changing the token, or an
 * operator's password, ends their sessions (the credential stamp).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { credentialStamp, readSession, Secrets, sessionMark, type Session } from '../dashboard/session';
import type { Operator } from '../gateway/store/ports/console';
import type { ConsoleDeps } from './deps';

/** The console's cookie names (`__Host-` is not used: the admin listener is plain HTTP on loopback by default). */
export const CONSOLE_COOKIES = { session: 'gg_console', pre: 'gg_console_pre' };
/** The built-in operator of the admin token. */
export const TOKEN_OPERATOR_ID = 'op_admin_token';

/** The signed-in operator of a request (set by `loadOperator`). */
export interface SignedOperator {
  session: Session;
  operator: Operator;
}

/** The console's key material: a MAC of the admin token under its own label. */
export function consoleSecrets(adminToken: string): Secrets {
  const secret = createHmac('sha256', adminToken).update('geogate console sessions').digest('base64url');
  return new Secrets(secret, CONSOLE_COOKIES);
}

/** The built-in operator: its "password hash" is a MAC of the token, so a new token ends its sessions. */
export function tokenOperator(secrets: Secrets, adminToken: string): Operator {
  return {
    id: TOKEN_OPERATOR_ID,
    name: 'admin-token',
    role: 'admin',
    passwordHash: secrets.mac('token', adminToken),
    createdAt: 0,
    disabledAt: null,
  };
}

/** Whether `given` is the admin token (constant time). */
export function isAdminToken(given: string, adminToken: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(adminToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The stamp of an operator's credentials (name and password hash), as a session carries it. */
export function operatorStamp(secrets: Secrets, op: Operator): string {
  return credentialStamp(secrets, { email: op.name, passwordHash: op.passwordHash });
}

/** The request's signed-in operator, or undefined. */
export function signedOperator(res: Response): SignedOperator | undefined {
  return res.locals['signed'] as SignedOperator | undefined;
}

/** Load the session's operator: a signed-out session, a disabled operator or a changed credential counts as none. */
export function loadOperator(deps: ConsoleDeps, secrets: Secrets): RequestHandler {
  return async (req: Request, res: Response, next) => {
    try {
      const session = await readSession(req, secrets, deps.clock);
      if (!session || (await deps.store.isConsumed(sessionMark(session.sid), deps.clock.now())))
        return next();
      const op =
        session.accountId === TOKEN_OPERATOR_ID
          ? tokenOperator(secrets, deps.adminToken)
          : await deps.store.getOperator(session.accountId);
      if (op && op.disabledAt === null && operatorStamp(secrets, op) === session.stamp) {
        res.locals['signed'] = { session, operator: op } satisfies SignedOperator;
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
