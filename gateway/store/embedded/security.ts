/** The security port on SQLite: synchronous statements, each write one immediate transaction or one statement. */
import type Database from 'better-sqlite3';
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

type Row = Record<string, unknown>;

/** Second-factor records and key-expiry reminders on one SQLite connection. */
export class EmbeddedSecurity implements SecurityStore {
  constructor(private readonly db: Database.Database) {}

  private requireAccount(accountId: string): void {
    const row = this.db.prepare('SELECT status FROM accounts WHERE id = ?').get(accountId) as
      { status: string } | undefined;
    if (!row) throw new StoreConflict('not_found', `account ${accountId} not found`);
    if (row.status === 'deleted')
      throw new StoreConflict('account_deleted', `account ${accountId} is deleted`);
  }

  async totpState(accountId: string): Promise<TotpState | null> {
    const row = this.db.prepare('SELECT * FROM account_totp WHERE account_id = ?').get(accountId);
    return row ? toTotpState(row as Row) : null;
  }

  async beginTotp(accountId: string, sealedSecret: string, now: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.requireAccount(accountId);
        const row = this.db
          .prepare('SELECT enabled_at FROM account_totp WHERE account_id = ?')
          .get(accountId) as { enabled_at: number | null } | undefined;
        if (row && row.enabled_at !== null) return false;
        this.db
          .prepare(
            `INSERT INTO account_totp (account_id, secret, created_at, enabled_at, last_step) VALUES (?, ?, ?, NULL, NULL)
             ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
          )
          .run(accountId, sealedSecret, now);
        return true;
      })
      .immediate();
  }

  async enableTotp(accountId: string, step: number, codeHashes: string[], now: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        const changed = this.db
          .prepare(
            'UPDATE account_totp SET enabled_at = ?, last_step = ? WHERE account_id = ? AND enabled_at IS NULL',
          )
          .run(now, step, accountId).changes;
        if (changed === 0) return false;
        this.replace(accountId, codeHashes, now);
        return true;
      })
      .immediate();
  }

  async acceptTotpStep(accountId: string, step: number): Promise<boolean> {
    return (
      this.db
        .prepare(
          `UPDATE account_totp SET last_step = ?
           WHERE account_id = ? AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)`,
        )
        .run(step, accountId, step).changes === 1
    );
  }

  async useRecoveryCode(accountId: string, codeHash: string, now: number): Promise<boolean> {
    return (
      this.db
        .prepare(
          'UPDATE account_recovery_codes SET used_at = ? WHERE account_id = ? AND code_hash = ? AND used_at IS NULL',
        )
        .run(now, accountId, codeHash).changes === 1
    );
  }

  private replace(accountId: string, codeHashes: string[], now: number): void {
    this.db.prepare('DELETE FROM account_recovery_codes WHERE account_id = ?').run(accountId);
    const insert = this.db.prepare(
      'INSERT INTO account_recovery_codes (account_id, code_hash, created_at, used_at) VALUES (?, ?, ?, NULL)',
    );
    for (const h of new Set(codeHashes)) insert.run(accountId, h, now);
  }

  async replaceRecoveryCodes(accountId: string, codeHashes: string[], now: number): Promise<void> {
    this.db
      .transaction(() => {
        this.requireAccount(accountId);
        this.replace(accountId, codeHashes, now);
      })
      .immediate();
  }

  async recoveryCodesLeft(accountId: string): Promise<number> {
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM account_recovery_codes WHERE account_id = ? AND used_at IS NULL')
      .get(accountId) as { n: number };
    return Number(row.n);
  }

  async disableTotp(accountId: string): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM account_recovery_codes WHERE account_id = ?').run(accountId);
        return this.db.prepare('DELETE FROM account_totp WHERE account_id = ?').run(accountId).changes === 1;
      })
      .immediate();
  }

  async keysExpiring(from: number, to: number, limit: number): Promise<ExpiringKey[]> {
    const rows = this.db.prepare(EXPIRING_SELECT).all(from, to, expiringPageSize(limit)) as Row[];
    return rows.map(toExpiringKey);
  }

  async markKeyExpiryNotified(id: string, expiresAt: number, now: number): Promise<boolean> {
    return (
      this.db
        .prepare(
          'UPDATE api_keys SET expiry_notified_at = ? WHERE id = ? AND expires_at = ? AND expiry_notified_at IS NULL',
        )
        .run(now, id, expiresAt).changes === 1
    );
  }
}
