/**
 * Balances (D16). The Redis wallet is what admissions spend; it is initialised from the PostgreSQL ledger sum
 * exactly once (HSETNX). Every later change (charge, release, top-up, package) is made in Redis by a script that also
 * writes the event the drain turns into the ledger row, so Redis and the ledger cannot disagree once drained.
 * Top-ups are applied once per idempotency key (or per ledger id when there is none).
 */
import type { Clock } from '../../core/clock';
import type { Knex } from 'knex';
import { newOrderedId } from '../ids';
import { toLedger } from '../rows';
import { StoreConflict, type LedgerEntry } from '../types';
import { pgFault, redisFault } from './errors';
import type { Layout } from './layout';
import { scriptsOf, type RedisClient } from './redis-client';

/** How long a top-up's idempotency mark stays in Redis (older repeats are found in the ledger). */
const TOPUP_MARK_TTL_S = 7 * 86_400;

type CreditResult = { entry: LedgerEntry; balance: number; replayed: boolean };

/** The wallets of all accounts. */
export class Wallets {
  constructor(
    private readonly redis: RedisClient,
    private readonly knex: Knex,
    private readonly layout: Layout,
    private readonly clock: Clock,
  ) {}

  /** Initialise an account's wallet from its ledger sum, once; unknown account → Error. */
  async init(accountId: string): Promise<number> {
    let sum: number;
    try {
      const acc = await this.knex('accounts').where({ id: accountId }).first('id');
      if (!acc) throw new Error(`unknown account ${accountId}`);
      const row = await this.knex('ledger').where({ account_id: accountId }).sum({ s: 'amount' }).first();
      sum = Number(row?.s ?? 0);
    } catch (err) {
      throw pgFault(err);
    }
    const b = await this.call(() =>
      scriptsOf(this.redis).ggWalletInit(1, this.layout.wallet(accountId), sum, this.clock.now()),
    );
    return Number(b);
  }

  /** The account's balance in Redis, or null when its wallet was never initialised. */
  async balance(accountId: string): Promise<number | null> {
    const b = await this.call(() => this.redis.hget(this.layout.wallet(accountId), 'b'));
    return b === null ? null : Number(b);
  }

  /** Add a top-up (see Store.credit); the caller has checked the account and the ledger for an earlier entry. */
  async credit(accountId: string, amount: number, ref: string | null, now: number): Promise<CreditResult> {
    const ledgerId = newOrderedId('led');
    const keys = [
      this.layout.wallet(accountId),
      this.layout.topupMark(accountId, ref ?? `id:${ledgerId}`),
      this.layout.stream(this.layout.accountShard(accountId)),
    ];
    const args = [ledgerId, amount, accountId, ref ?? '', now, TOPUP_MARK_TTL_S];
    for (;;) {
      const r = (await this.call(() => scriptsOf(this.redis).ggCredit(3, ...keys, ...args))) as unknown[];
      const entry = (id: string, amt: number, at: number): LedgerEntry =>
        toLedger({
          id,
          account_id: accountId,
          amount: amt,
          kind: 'topup',
          key_id: null,
          ref,
          created_at: at,
        });
      if (r[0] === 1) return { entry: entry(ledgerId, amount, now), balance: Number(r[1]), replayed: false };
      if (r[0] === 2) {
        const [priorId, priorAmount, priorAt] = String(r[1]).split('|');
        if (Number(priorAmount) !== amount) {
          throw new StoreConflict(
            'idempotency_mismatch',
            'this idempotency key was used with another amount',
          );
        }
        return {
          entry: entry(priorId ?? '', amount, Number(priorAt)),
          balance: Number(r[2]),
          replayed: true,
        };
      }
      if (r[0] === 4) throw new StoreConflict('invalid_input', 'amount too large');
      await this.init(accountId);
    }
  }

  /** Debit a package price; false when the balance does not cover it (nothing changed). */
  async debit(accountId: string, price: number, keyId: string, now: number): Promise<number | false> {
    const ledgerId = newOrderedId('led');
    const keys = [this.layout.wallet(accountId), this.layout.stream(this.layout.accountShard(accountId))];
    for (;;) {
      const r = (await this.call(() =>
        scriptsOf(this.redis).ggDebit(2, ...keys, ledgerId, price, accountId, keyId, now),
      )) as unknown[];
      if (r[0] === 1) return Number(r[1]);
      if (r[0] === 0) return false;
      await this.init(accountId);
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw redisFault(err);
    }
  }
}
