/**
 * The console port over the relational tables of either store (knex: SQLite or PostgreSQL). The shared store
 * drains its pending ledger and usage events first (`beforeRead`), so the figures are the drained tables' sums.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type {
  AuditQuery,
  AuditRecord,
  ConsoleStore,
  Operator,
  OperatorRole,
  Overview,
  OverviewDay,
  RefusalRecord,
  TopKey,
} from './ports/console';
import { toKey } from './rows';
import { StoreConflict, type ApiKey } from './types';

/** Refusals kept per account (the newest); older rows beyond it are pruned with each batch. */
export const REFUSALS_PER_ACCOUNT = 200;
/** How long a refusal is kept. */
export const REFUSAL_KEEP_MS = 86_400_000;
/** How long an audit line is kept, and the most lines kept (older ones pruned on each write). */
export const AUDIT_KEEP_MS = 90 * 86_400_000;
export const AUDIT_MAX_ROWS = 100_000;
/** The longest details JSON stored; longer details are replaced by a note (a reason is at most 200 characters). */
export const AUDIT_MAX_DETAILS = 4_000;
const DAY_MS = 86_400_000;
const NAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

type Row = Record<string, unknown>;
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

function toOperator(r: Row): Operator {
  return {
    id: String(r['id']),
    name: String(r['name']),
    role: r['role'] === 'admin' ? 'admin' : 'support',
    passwordHash: r['password_hash'] === null ? null : String(r['password_hash']),
    createdAt: num(r['created_at']),
    disabledAt: r['disabled_at'] === null || r['disabled_at'] === undefined ? null : num(r['disabled_at']),
  };
}

function toRefusal(r: Row): RefusalRecord {
  return {
    accountId: String(r['account_id']),
    keyId: r['key_id'] === null ? null : String(r['key_id']),
    code: String(r['code']),
    address: String(r['address']),
    host: String(r['host']),
    at: num(r['at']),
  };
}

function toAudit(r: Row): AuditRecord {
  let details: AuditRecord['details'] = {};
  try {
    const parsed = JSON.parse(String(r['details'])) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      details = parsed as AuditRecord['details'];
  } catch {
    // A row is never written unparsable; an unreadable one shows without details rather than failing the page.
  }
  const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  return {
    seq: num(r['seq']),
    at: num(r['at']),
    actor: r['actor'] === 'customer' ? 'customer' : 'operator',
    operator: text(r['operator']),
    action: String(r['action']),
    accountId: text(r['account_id']),
    object: text(r['object']),
    details,
  };
}

/** An audit line's row, its texts cut to the columns' widths. */
function auditCells(e: Omit<AuditRecord, 'seq'>): Row {
  let details = JSON.stringify(e.details ?? {});
  if (details.length > AUDIT_MAX_DETAILS) details = JSON.stringify({ truncated: details.length });
  return {
    at: e.at,
    actor: e.actor === 'customer' ? 'customer' : 'operator',
    operator: e.operator === null ? null : e.operator.slice(0, 64),
    action: e.action.slice(0, 48),
    account_id: e.accountId === null ? null : e.accountId.slice(0, 40),
    object: e.object === null ? null : e.object.slice(0, 64),
    details,
  };
}

/** A refusal's row, its texts cut to the columns' widths. */
export interface RefusalCells {
  account_id: string;
  key_id: string | null;
  code: string;
  address: string;
  host: string;
  at: number;
}

/** The rows of a batch of refusals. */
export function refusalCells(rows: readonly RefusalRecord[]): RefusalCells[] {
  return rows.map((r) => ({
    account_id: r.accountId.slice(0, 40),
    key_id: r.keyId === null ? null : r.keyId.slice(0, 40),
    code: r.code.slice(0, 40),
    address: r.address.slice(0, 64),
    host: r.host.slice(0, 64),
    at: r.at,
  }));
}

/** The epoch ms at 00:00 UTC of `day`, or NaN. */
function dayStart(day: string): number {
  return DAY.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
}

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function limitOf(n: number, max: number): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new StoreConflict('invalid_input', 'limit');
  return n;
}

/** The console port on `knex`; `run` wraps each statement (fault translation), `beforeRead` drains pending events. */
export class KnexConsoleStore implements ConsoleStore {
  constructor(
    private readonly knex: Knex,
    private readonly run: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
    private readonly beforeRead: () => Promise<void> = async () => undefined,
  ) {}

  async createOperator(
    input: { name: string; role: OperatorRole; passwordHash: string | null },
    now: number,
  ): Promise<Operator> {
    const name = input.name.trim().toLowerCase();
    if (!NAME.test(name)) throw new StoreConflict('invalid_input', 'name');
    if (input.role !== 'admin' && input.role !== 'support') throw new StoreConflict('invalid_input', 'role');
    const row = {
      id: `op_${randomBytes(10).toString('hex')}`,
      name,
      role: input.role,
      password_hash: input.passwordHash,
      created_at: now,
      disabled_at: null,
    };
    return this.run(async () => {
      // One statement: a concurrent create of the same name hits the unique index, reported as taken.
      const inserted = await this.knex('operators').insert(row).onConflict('name').ignore().returning('id');
      if (inserted.length === 0) throw new StoreConflict('email_taken', 'operator name taken');
      return toOperator(row);
    });
  }

  async getOperator(id: string): Promise<Operator | null> {
    const row = (await this.run(() => this.knex('operators').where({ id }).first())) as Row | undefined;
    return row ? toOperator(row) : null;
  }

  async findOperator(name: string): Promise<Operator | null> {
    const norm = name.trim().toLowerCase();
    if (!NAME.test(norm)) return null;
    const row = (await this.run(() => this.knex('operators').where({ name: norm }).first())) as
      Row | undefined;
    return row ? toOperator(row) : null;
  }

  async listOperators(): Promise<Operator[]> {
    const rows = (await this.run(() => this.knex('operators').orderBy('name'))) as Row[];
    return rows.map(toOperator);
  }

  async findKeysByPrefix(prefix: string, limit: number): Promise<ApiKey[]> {
    limitOf(limit, 100);
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(prefix)) return [];
    // The prefix holds no LIKE metacharacter but `_`, which is escaped.
    const pattern = `${prefix.replace(/_/g, '\\_')}%`;
    const rows = (await this.run(() =>
      this.knex('api_keys')
        .whereRaw("prefix LIKE ? ESCAPE '\\'", [pattern])
        .orderBy('created_at', 'desc')
        .limit(limit),
    )) as Row[];
    return rows.map((r) => toKey(r));
  }

  async receiptAccount(number: string): Promise<string | null> {
    if (number.length === 0 || number.length > 20) return null;
    const row = (await this.run(() => this.knex('receipts').where({ number }).first('account_id'))) as
      Row | undefined;
    return row ? String(row['account_id']) : null;
  }

  async recordRefusals(rows: readonly RefusalRecord[], now: number): Promise<void> {
    if (rows.length === 0) return;
    const cells = refusalCells(rows);
    const accounts = [...new Set(cells.map((c) => c.account_id))];
    await this.run(() =>
      this.knex.transaction(async (tx) => {
        for (let i = 0; i < cells.length; i += 200)
          await tx('recent_refusals').insert(cells.slice(i, i + 200));
        await tx('recent_refusals')
          .where('at', '<', now - REFUSAL_KEEP_MS)
          .del();
        for (const account of accounts) {
          const edge = (await tx('recent_refusals')
            .where({ account_id: account })
            .orderBy('seq', 'desc')
            .offset(REFUSALS_PER_ACCOUNT)
            .first('seq')) as Row | undefined;
          if (edge) {
            await tx('recent_refusals')
              .where({ account_id: account })
              .andWhere('seq', '<=', num(edge['seq']))
              .del();
          }
        }
      }),
    );
  }

  async recentRefusals(accountId: string, since: number, limit: number): Promise<RefusalRecord[]> {
    limitOf(limit, 1000);
    const rows = (await this.run(() =>
      this.knex('recent_refusals')
        .where({ account_id: accountId })
        .andWhere('at', '>=', since)
        .orderBy([
          { column: 'at', order: 'desc' },
          { column: 'seq', order: 'desc' },
        ])
        .limit(limit),
    )) as Row[];
    return rows.map(toRefusal);
  }

  async refusalsByCode(since: number): Promise<Record<string, number>> {
    const rows = (await this.run(() =>
      this.knex('recent_refusals').where('at', '>=', since).groupBy('code').select('code').count({ n: '*' }),
    )) as Row[];
    const out: Record<string, number> = {};
    for (const r of rows) out[String(r['code'])] = num(r['n']);
    return out;
  }

  async overview(fromDay: string, toDay: string, topKeys: number): Promise<Overview> {
    const from = dayStart(fromDay);
    const to = dayStart(toDay);
    if (Number.isNaN(from) || Number.isNaN(to) || to < from || (to - from) / DAY_MS > 365) {
      throw new StoreConflict('invalid_input', 'days');
    }
    limitOf(topKeys, 100);
    await this.beforeRead();
    const end = to + DAY_MS;
    const k = this.knex;
    /** Requests per day (free, billed, refused) of the usage subjects matching `subjects` (keys, or addresses). */
    const usagePerDay = (subjects: string): Promise<Row[]> =>
      k('usage_daily')
        .where('day', '>=', fromDay)
        .andWhere('day', '<=', toDay)
        .andWhere('subject', 'like', subjects)
        .groupBy('day')
        .select('day')
        .sum({ free: 'free', billed: 'billed', refused: 'refused' }) as Promise<Row[]>;
    const [accounts, created, ledger, usage, keyUsage, anonymous] = await this.run(() =>
      Promise.all([
        k('accounts').select('status').count({ n: '*' }).groupBy('status') as Promise<Row[]>,
        k('accounts')
          .where('created_at', '>=', from)
          .andWhere('created_at', '<', end)
          .select('created_at') as Promise<Row[]>,
        k('ledger')
          .where('created_at', '>=', from)
          .andWhere('created_at', '<', end)
          .whereIn('kind', ['topup', 'charge', 'package'])
          .select('account_id', 'kind', 'amount', 'created_at') as Promise<Row[]>,
        usagePerDay('key:%'),
        k('usage_daily as u')
          .join('api_keys as k', 'k.id', k.raw('substr(u.subject, 5)'))
          .where('u.day', '>=', fromDay)
          .andWhere('u.day', '<=', toDay)
          .andWhere('u.subject', 'like', 'key:%')
          .groupBy('k.id', 'k.account_id', 'k.prefix')
          .select('k.id as id', 'k.account_id as account_id', 'k.prefix as prefix')
          .sum({ free: 'u.free', billed: 'u.billed' }) as Promise<Row[]>,
        usagePerDay('network:%'),
      ]),
    );
    const days = new Map<string, OverviewDay>();
    for (let t = from; t <= to; t += DAY_MS) {
      const day = utcDay(t);
      days.set(day, {
        day,
        signups: 0,
        topups: 0,
        toppedUp: 0,
        revenue: 0,
        requests: 0,
        refused: 0,
        anonymous: 0,
        anonymousRefused: 0,
      });
    }
    const at = (ms: number): OverviewDay | undefined => days.get(utcDay(ms));
    for (const r of created) {
      const d = at(num(r['created_at']));
      if (d) d.signups += 1;
    }
    const paying = new Set<string>();
    for (const r of ledger) {
      const d = at(num(r['created_at']));
      if (!d) continue;
      const amount = num(r['amount']);
      if (r['kind'] === 'topup') {
        d.topups += 1;
        d.toppedUp += amount;
      } else {
        d.revenue -= amount;
        paying.add(String(r['account_id']));
      }
    }
    for (const r of usage) {
      const d = days.get(String(r['day']));
      if (!d) continue;
      d.requests += num(r['free']) + num(r['billed']);
      d.refused += num(r['refused']);
    }
    for (const r of anonymous) {
      const d = days.get(String(r['day']));
      if (!d) continue;
      d.anonymous += num(r['free']) + num(r['billed']);
      d.anonymousRefused += num(r['refused']);
    }
    let total = 0;
    let active = 0;
    for (const r of accounts) {
      if (r['status'] === 'deleted') continue;
      total += num(r['n']);
      if (r['status'] === 'active') active += num(r['n']);
    }
    const keys: TopKey[] = keyUsage
      .map((r) => ({
        keyId: String(r['id']),
        accountId: String(r['account_id']),
        prefix: String(r['prefix']),
        requests: num(r['free']) + num(r['billed']),
      }))
      .filter((x) => x.requests > 0);
    const using = new Set(keys.map((x) => x.accountId));
    keys.sort((a, b) => b.requests - a.requests || a.keyId.localeCompare(b.keyId));
    return {
      days: [...days.values()],
      accounts: total,
      activeAccounts: active,
      usingAccounts: using.size,
      payingAccounts: paying.size,
      topKeys: keys.slice(0, topKeys),
    };
  }

  async recordAudit(entry: Omit<AuditRecord, 'seq'>, now: number): Promise<AuditRecord> {
    if (!Number.isSafeInteger(entry.at) || typeof entry.action !== 'string' || entry.action === '')
      throw new StoreConflict('invalid_input', 'audit entry');
    const row = auditCells(entry);
    // Single statements, no transaction (the embedded store's knex shares the admissions' connection): pruning is
    // idempotent, so a crash between them leaves at most a few extra rows for the next write to prune.
    return this.run(async () => {
      const inserted = (await this.knex('audit_log').insert(row).returning('seq')) as unknown[];
      const first = inserted[0];
      const seq = num(typeof first === 'object' && first !== null ? (first as Row)['seq'] : first);
      await this.knex('audit_log')
        .where('at', '<', now - AUDIT_KEEP_MS)
        .del();
      // seq only grows, so the cap is a range delete on the key (gaps make it keep fewer, never more).
      await this.knex('audit_log')
        .where('seq', '<=', seq - AUDIT_MAX_ROWS)
        .del();
      return toAudit({ ...row, seq });
    });
  }

  async auditLog(query: AuditQuery): Promise<AuditRecord[]> {
    limitOf(query.limit, 200);
    // No account id is longer than its column: such a filter matches nothing (never a cut-down id's lines).
    if (query.accountId !== undefined && query.accountId.length > 40) return [];
    if (query.before !== undefined && (!Number.isSafeInteger(query.before) || query.before < 1))
      throw new StoreConflict('invalid_input', 'before');
    const rows = (await this.run(() => {
      const q = this.knex('audit_log').orderBy('seq', 'desc').limit(query.limit);
      if (query.accountId !== undefined) q.where({ account_id: query.accountId });
      if (query.before !== undefined) q.andWhere('seq', '<', query.before);
      return q;
    })) as Row[];
    return rows.map(toAudit);
  }
}
