/** What the console's routes share: the deps, the accounts service, the session secrets, request helpers. */
import type { Request, Response } from 'express';
import type { Actor } from '../gateway/accounts/audit';
import { requestIdOfResponse } from '../gateway/net/request-id-middleware';
import type { Secrets } from '../dashboard/session';
import { RecordingAccounts } from './audit-trail';
import type { ConsoleDeps } from './deps';
import { ConsoleError } from './errors';
import { consoleSecrets, signedOperator, type SignedOperator } from './session';
import type { Frame } from './views/layout';

export interface ConsoleContext extends ConsoleDeps {
  accounts: RecordingAccounts;
  secrets: Secrets;
}

/** Build the shared context. */
export function createContext(deps: ConsoleDeps): ConsoleContext {
  if (deps.adminToken.length < 16)
    throw new Error('the console needs an admin token of at least 16 characters');
  return {
    ...deps,
    accounts: new RecordingAccounts({
      store: deps.store,
      rules: deps.rules,
      clock: deps.clock,
      pepper: deps.pepper,
      logger: deps.logger,
      ...(deps.onKeyRevoked ? { onKeyRevoked: deps.onKeyRevoked } : {}),
    }),
    secrets: consoleSecrets(deps.adminToken),
  };
}

/** The signed-in operator; 401 without one (routes behind `requireOperator` always have one). */
export function signed(res: Response): SignedOperator {
  const s = signedOperator(res);
  if (!s) throw new ConsoleError('unauthorized', 'Sign in first');
  return s;
}

/** The audit actor of this request: the operator by name, the peer address, the request id, and a reason. */
export function operatorActor(req: Request, res: Response, reason?: string): Actor {
  return {
    kind: 'operator',
    operator: signed(res).operator.name,
    address: req.socket.remoteAddress ?? '',
    requestId: requestIdOfResponse(res),
    ...(reason !== undefined ? { reason } : {}),
  };
}

/** The page frame of a signed-in request. */
export function frameOf(ctx: ConsoleContext, res: Response, flash: string | null = null): Frame {
  const s = signed(res);
  return { operator: s.operator, csrf: s.session.csrf, ruleSet: ctx.rules.name, flash };
}
