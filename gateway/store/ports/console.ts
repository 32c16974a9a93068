/** The console port: operator accounts, operator searches, recent refusals and the business overview. */
import type { ApiKey } from '../types';

/** What an operator may do: support (read, revoke, suspend, resend) or admin (everything). */
export type OperatorRole = 'support' | 'admin';

/** An operator of the console. `name` is stored lower-case; a disabled operator cannot sign in. */
export interface Operator {
  id: string;
  name: string;
  role: OperatorRole;
  /** scrypt hash (gateway/accounts/password.ts); null: no password sign-in. */
  passwordHash: string | null;
  createdAt: number;
  disabledAt: number | null;
}

/** One refused request of an account (recent refusals, kept a day). */
export interface RefusalRecord {
  accountId: string;
  keyId: string | null;
  code: string;
  /** The client address (plain IPv4/IPv6). */
  address: string;
  /** The host label the request came to. */
  host: string;
  at: number;
}

/** Figures of one UTC day of the overview. */
export interface OverviewDay {
  day: string;
  signups: number;
  /** Top-up ledger rows (paid top-ups and operator credits) and their sum. */
  topups: number;
  toppedUp: number;
  /** Money spent: minus the sum of charge and package rows. */
  revenue: number;
  /** Requests of keyed subjects (free and billed) and refusals counted on them. */
  requests: number;
  refused: number;
  /** Anonymous requests (the networks' daily counters, `network:` subjects): served and refused. */
  anonymous: number;
  anonymousRefused: number;
}

/** A key's requests in the overview's window. */
export interface TopKey {
  keyId: string;
  accountId: string;
  prefix: string;
  requests: number;
}

/** The overview of [fromDay, toDay] (UTC days, inclusive). */
export interface Overview {
  days: OverviewDay[];
  /** Accounts not deleted, and of them those not suspended. */
  accounts: number;
  activeAccounts: number;
  /** Accounts with a key that served a request in the window. */
  usingAccounts: number;
  /** Accounts with a charge or package row in the window. */
  payingAccounts: number;
  topKeys: TopKey[];
}

/** One stored audit line: who did what to which account, with non-secret facts (never a key, token, link, password). */
export interface AuditRecord {
  /** Assigned by the store, increasing: the order of the log and its page cursor. */
  seq: number;
  at: number;
  actor: 'operator' | 'customer';
  /** The console operator's name, or null (the admin token through the admin API, or a customer). */
  operator: string | null;
  action: string;
  /** The account acted on, or null (an operator's sign-in). */
  accountId: string | null;
  /** The object's id (key, ledger entry, operator), or null. */
  object: string | null;
  /** The audit line's other fields (reason, units, address, request id). */
  details: Readonly<Record<string, string | number | null>>;
}

/** A page of the audit log: newest first, before the cursor `before` (a seq), of one account or of all. */
export interface AuditQuery {
  accountId?: string;
  before?: number;
  /** 1..200. */
  limit: number;
}

/** Operator records and the console's reads. Names longer than 64 or malformed → StoreConflict('invalid_input'). */
export interface ConsoleStore {
  /** Create an operator; a taken name (case-insensitive) → StoreConflict('email_taken'). */
  createOperator(
    input: { name: string; role: OperatorRole; passwordHash: string | null },
    now: number,
  ): Promise<Operator>;
  getOperator(id: string): Promise<Operator | null>;
  /** Case-insensitive. */
  findOperator(name: string): Promise<Operator | null>;
  listOperators(): Promise<Operator[]>;
  /** Keys whose display prefix starts with `prefix` (at most `limit`, 1..100), newest first. */
  findKeysByPrefix(prefix: string, limit: number): Promise<ApiKey[]>;
  /** The account of the receipt with this number, or null. */
  receiptAccount(number: string): Promise<string | null>;
  /** Append refusals (a batch from one instance) and prune what is older than `now` − 24 h or beyond the cap. */
  recordRefusals(rows: readonly RefusalRecord[], now: number): Promise<void>;
  /** The account's refusals at or after `since`, newest first, at most `limit` (1..1000). */
  recentRefusals(accountId: string, since: number, limit: number): Promise<RefusalRecord[]>;
  /** Refusal counts by code of every account at or after `since`. */
  refusalsByCode(since: number): Promise<Record<string, number>>;
  /** The overview's figures for the UTC days [fromDay, toDay] (at most 366). */
  overview(fromDay: string, toDay: string, topKeys: number): Promise<Overview>;
  /**
   * Append an audit line (its seq assigned here) and prune lines older than `now` − the retention or beyond the row
   * cap (gateway/store/console-store.ts). Texts are cut to their columns; over-long details are replaced by a note.
   */
  recordAudit(entry: Omit<AuditRecord, 'seq'>, now: number): Promise<AuditRecord>;
  /** A page of the audit log, newest first; a limit outside 1..200 or a bad cursor → StoreConflict('invalid_input'). */
  auditLog(query: AuditQuery): Promise<AuditRecord[]>;
}
