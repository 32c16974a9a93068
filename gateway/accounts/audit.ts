/**
 * The audit log (issue 14 item 2): one JSON line (`audit: true`, msg "audit") per account action, through the admin
 * API and the dashboard alike: who (operator or the customer's account), what, which object, from which address,
 * and the request id. Never a key, token, link or password: only ids go in.
 */
import type pino from 'pino';

/** Who acts: the operator (admin token) or a signed-in customer; their address and the request id. */
export interface Actor {
  kind: 'operator' | 'customer';
  /** The customer's own account id (customers only). */
  accountId?: string;
  /** The signed-in operator of the console (operators only; absent: the admin token through the admin API). */
  operator?: string;
  /** Why the operator acted (the console asks for it on money actions). */
  reason?: string;
  address: string;
  requestId: string;
}

/** The account actions that are audited. */
export type AuditAction =
  | 'account.created'
  | 'account.suspended'
  | 'account.reinstated'
  | 'key.created'
  | 'key.revoked'
  | 'key.renamed'
  | 'key.restricted'
  | 'key.rotated'
  | 'key.expiry_set'
  | 'key.burst_set'
  | 'package.bought'
  | 'account.topped_up'
  | 'plan.set'
  | 'plan.bought'
  | 'whitelist.added'
  | 'whitelist.removed'
  | 'session.signed_in'
  | 'session.signed_out'
  | 'password.reset_requested'
  | 'password.reset'
  | 'password.changed'
  | 'email.change_requested'
  | 'email.changed'
  | 'account.exported'
  | 'billing.updated'
  | 'autotopup.updated'
  | 'autotopup.card_removed'
  | 'email.verification_sent'
  | 'email.verified'
  | 'account.deletion_requested'
  | 'account.deleted'
  | 'operator.created'
  | 'operator.signed_in'
  | 'operator.signed_out'
  | 'two_factor.enabled'
  | 'two_factor.disabled'
  | 'two_factor.confirmed'
  | 'two_factor.recovery_codes_renewed';

/** The object acted on: the account and, where there is one, the object's id; plus non-secret facts. */
export interface AuditObject {
  account: string;
  object?: string;
  /** Non-secret facts (units, plan end, address block). */
  detail?: Readonly<Record<string, string | number | null>>;
}

/** Write one audit line. */
export function audit(logger: pino.Logger, actor: Actor, action: AuditAction, what: AuditObject): void {
  logger.info(
    {
      audit: true,
      action,
      actor: actor.kind,
      actorAccount: actor.accountId ?? null,
      ...(actor.operator !== undefined ? { operator: actor.operator } : {}),
      ...(actor.reason !== undefined ? { reason: actor.reason } : {}),
      account: what.account,
      object: what.object ?? null,
      ...what.detail,
      address: actor.address,
      requestId: actor.requestId,
    },
    'audit',
  );
}
