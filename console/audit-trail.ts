/**
 * The console's audit lines, kept in the store as well as written to the log stream, so the console can show them
 * (the "Audit log" page and the account page). The accounts service writes every audit line through its `audit`
 * method, so overriding it here catches the console's own lines and the ones the service writes for the actions.
 */
import { AccountsService, type AccountsDeps } from '../gateway/accounts/service';
import type { Actor, AuditAction, AuditObject } from '../gateway/accounts/audit';
import type { AuditRecord, ConsoleStore } from '../gateway/store/ports/console';

/** The stored form of an audit line: the same fields as the log line, nothing secret (ids and facts only). */
export function auditEntry(
  actor: Actor,
  action: AuditAction,
  what: AuditObject,
  now: number,
): Omit<AuditRecord, 'seq'> {
  const details: Record<string, string | number | null> = { ...what.detail };
  if (actor.reason !== undefined) details['reason'] = actor.reason;
  if (actor.accountId !== undefined) details['actorAccount'] = actor.accountId;
  details['address'] = actor.address;
  details['requestId'] = actor.requestId;
  return {
    at: now,
    actor: actor.kind,
    operator: actor.operator ?? null,
    action,
    // An operator's sign-in names no account ('-' in the log line).
    accountId: what.account === '-' || what.account === '' ? null : what.account,
    object: what.object ?? null,
    details,
  };
}

/** The accounts service whose audit lines also go to the store. */
export class RecordingAccounts extends AccountsService {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: AccountsDeps & {
      store: AccountsDeps['store'] & Pick<ConsoleStore, 'recordAudit'>;
    },
  ) {
    super(deps);
  }

  override audit(actor: Actor | undefined, action: AuditAction, what: AuditObject): void {
    super.audit(actor, action, what);
    if (actor === undefined) return;
    const now = this.deps.clock.now();
    // The action is done and its log line written: a failed store write is logged, never turned into an error.
    const write: Promise<void> = this.deps.store
      .recordAudit(auditEntry(actor, action, what, now), now)
      .then(
        () => undefined,
        (err: unknown) =>
          this.deps.logger?.warn(
            { err: (err as Error).message, action, account: what.account },
            'console: audit line not stored',
          ),
      )
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Wait for the audit lines written so far (before a redirect to a page that shows them). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
