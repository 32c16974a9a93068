/** The security port on PostgreSQL: conditional single statements, and one transaction where two tables change. */
import type { Knex } from 'knex';
import {
  EXPIRING_SELECT,
  expiringPageSize,
  toExpiringKey,
  toTotpState,
  type ExpiringKey,
  type SecurityStore,
  type TotpState,
} from '../ports/security';
import { StoreConflict } from '../types';
import type { SharedContext } from './context';

type Row = Record<string, unknown>;

async function requireAccount(trx: Knex | Knex.Transaction, accountId: string): Promise<void> {
  const row = (await trx('accounts').where({ id: accountId }).first('status')) as
    { status: string } | undefined;
  if (!row) throw new StoreConflict('not_found', `account ${accountId} not found`);
  if (row.status === 'deleted') throw new StoreConflict('account_deleted', `account ${accountId} is deleted`);
}

async function replace(
  trx: Knex.Transaction,
  accountId: string,
  codeHashes: string[],
  now: number,
): Promise<void> {
  await trx('account_recovery_codes').where({ account_id: accountId }).delete();
  const rows = [...new Set(codeHashes)].map((h) => ({
    account_id: accountId,
    code_hash: h,
    created_at: now,
    used_at: null,
  }));
  if (rows.length > 0) await trx('account_recovery_codes').insert(rows);
}

/** Second-factor records and key-expiry reminders of one shared store; PostgreSQL faults leave as StoreUnavailableError. */
export class SharedSecurity implements SecurityStore {
  private readonly knex: Knex;
  constructor(private readonly c: SharedContext) {
    this.knex = c.knex;
  }

  totpState(accountId: string): Promise<TotpState | null> {
    return this.c.pg(async () => {
      const row = (await this.knex('account_totp').where({ account_id: accountId }).first()) as
        Row | undefined;
      return row ? toTotpState(row) : null;
    });
  }

  beginTotp(accountId: string, sealedSecret: string, now: number): Promise<boolean> {
    return this.c.pg(() =>
      this.knex.transaction(async (trx) => {
        await requireAccount(trx, accountId);
        // The account row is locked, so two beginnings (or a beginning and a confirmation) take turns.
        await trx('accounts').where({ id: accountId }).forUpdate().first('id');
        const row = (await trx('account_totp').where({ account_id: accountId }).first('enabled_at')) as
          { enabled_at: unknown } | undefined;
        if (row && row.enabled_at !== null) return false;
        await trx('account_totp')
          .insert({
            account_id: accountId,
            secret: sealedSecret,
            created_at: now,
            enabled_at: null,
            last_step: null,
          })
          .onConflict('account_id')
          .merge(['secret', 'created_at']);
        return true;
      }),
    );
  }

  enableTotp(accountId: string, step: number, codeHashes: string[], now: number): Promise<boolean> {
    return this.c.pg(() =>
      this.knex.transaction(async (trx) => {
        const changed = await trx('account_totp')
          .where({ account_id: accountId })
          .whereNull('enabled_at')
          .update({ enabled_at: now, last_step: step });
        if (changed === 0) return false;
        await replace(trx, accountId, codeHashes, now);
        return true;
      }),
    );
  }

  acceptTotpStep(accountId: string, step: number): Promise<boolean> {
    return this.c.pg(async () => {
      const changed = await this.knex('account_totp')
        .where({ account_id: accountId })
        .whereNotNull('enabled_at')
        .andWhere((q) => q.whereNull('last_step').orWhere('last_step', '<', step))
        .update({ last_step: step });
      return changed === 1;
    });
  }

  useRecoveryCode(accountId: string, codeHash: string, now: number): Promise<boolean> {
    return this.c.pg(async () => {
      const changed = await this.knex('account_recovery_codes')
        .where({ account_id: accountId, code_hash: codeHash })
        .whereNull('used_at')
        .update({ used_at: now });
      return changed === 1;
    });
  }

  replaceRecoveryCodes(accountId: string, codeHashes: string[], now: number): Promise<void> {
    return this.c.pg(() =>
      this.knex.transaction(async (trx) => {
        await requireAccount(trx, accountId);
        await replace(trx, accountId, codeHashes, now);
      }),
    );
  }

  recoveryCodesLeft(accountId: string): Promise<number> {
    return this.c.pg(async () => {
      const row = (await this.knex('account_recovery_codes')
        .where({ account_id: accountId })
        .whereNull('used_at')
        .count({ n: '*' })
        .first()) as { n: unknown } | undefined;
      return Number(row?.n ?? 0);
    });
  }

  disableTotp(accountId: string): Promise<boolean> {
    return this.c.pg(() =>
      this.knex.transaction(async (trx) => {
        await trx('account_recovery_codes').where({ account_id: accountId }).delete();
        return (await trx('account_totp').where({ account_id: accountId }).delete()) === 1;
      }),
    );
  }

  keysExpiring(from: number, to: number, limit: number): Promise<ExpiringKey[]> {
    const size = expiringPageSize(limit);
    return this.c.pg(async () => {
      const result = (await this.knex.raw(EXPIRING_SELECT, [from, to, size])) as { rows: Row[] };
      return result.rows.map(toExpiringKey);
    });
  }

  markKeyExpiryNotified(id: string, expiresAt: number, now: number): Promise<boolean> {
    return this.c.pg(async () => {
      const changed = await this.knex('api_keys')
        .where({ id, expires_at: expiresAt })
        .whereNull('expiry_notified_at')
        .update({ expiry_notified_at: now });
      return changed === 1;
    });
  }
}
