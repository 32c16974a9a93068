/** Account lifecycle of the embedded store (issue 15 item 1): e-mail verification and deletion, one transaction each. */
import type Database from 'better-sqlite3';
import { normaliseEmail } from '../checks';
import { ERASED_WITH_ACCOUNT } from '../erasure';
import { newOrderedId } from '../ids';
import type { Account } from '../types';
import { insertLedger, requireAccount, requireLiveAccount } from './accounts';

/** See Store.markEmailVerified. */
export function markEmailVerified(db: Database.Database, id: string, now: number): Account {
  return db
    .transaction(() => {
      requireLiveAccount(db, id);
      db.prepare('UPDATE accounts SET email_verified_at = ? WHERE id = ? AND email_verified_at IS NULL').run(
        now,
        id,
      );
      return requireAccount(db, id);
    })
    .immediate();
}

/** See Store.deleteAccount. */
export function deleteAccount(
  db: Database.Database,
  id: string,
  tombstone: string,
  now: number,
): { account: Account; forfeited: number } {
  return db
    .transaction(() => {
      const account = requireLiveAccount(db, id);
      const keyIds = (
        db.prepare('SELECT id FROM api_keys WHERE account_id = ?').all(id) as { id: string }[]
      ).map((r) => r.id);
      db.prepare(
        "UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE account_id = ? AND status = 'active'",
      ).run(now, id);
      db.prepare('DELETE FROM whitelist WHERE account_id = ?').run(id);
      // Personal data kept beside the account by issue 15's other features: billing details (receipts keep their
      // own copy, for accounting), alert settings, webhook endpoints (URLs, signing keys) and queued or logged
      // notifications (their targets are addresses and URLs).
      for (const table of ERASED_WITH_ACCOUNT)
        db.prepare(`DELETE FROM ${table} WHERE account_id = ?`).run(id);
      const slots = db.prepare('DELETE FROM slots WHERE scope = ?');
      slots.run(`account:${id}`);
      for (const k of keyIds) slots.run(`key:${k}`);
      const forfeited = Math.max(0, account.balance);
      if (forfeited > 0) {
        insertLedger(db, {
          id: newOrderedId('led'),
          account_id: id,
          amount: -forfeited,
          kind: 'adjustment',
          key_id: null,
          ref: 'account-deleted',
          created_at: now,
        });
      }
      db.prepare(
        `UPDATE accounts SET email = ?, email_norm = ?, name = NULL, password_hash = NULL, status = 'deleted',
           balance = balance - ?, unlimited_until = NULL, deleted_at = ? WHERE id = ?`,
      ).run(tombstone, normaliseEmail(tombstone), forfeited, now, id);
      return { account: requireAccount(db, id), forfeited };
    })
    .immediate();
}
