/** Credit: balance, ledger, packages (A) or plan (B), and top-ups through the payment provider. */
import type { Actor } from '../../gateway/accounts/audit';
import type { Account, LedgerEntry } from '../../gateway/store/types';
import type { AppContext } from '../context';
import { invalidField } from '../errors';
import * as v from '../validate';
import type { PaymentProvider, TopUpResult } from '../payments/types';
import { iso, keyView, type KeyJson } from './views';

/** Values of the credit page's forms after a refusal or success. */
export interface CreditForm {
  amount?: string;
  error?: string;
  message?: string;
  packageError?: string;
  planError?: string;
}

/** Shown ledger rows (newest first). */
export const LEDGER_ROWS = 50;

/** The account's money picture. */
export async function creditSummary(
  ctx: AppContext,
  account: Account,
): Promise<{
  balance: number;
  /** Newest first, in integer units (the API shows them with ledgerView, the page formats them). */
  ledger: LedgerEntry[];
  /** What the page calls each of the account's keys in its charge rows: its label, else its prefix. */
  keyNames: Record<string, string>;
  packages: KeyJson[];
  unlimitedUntil: string | null;
  provider: 'test' | 'stripe' | 'none' | 'btcpay';
  /** Whether crypto top-ups (BTCPay Server) are offered beside the card flow. */
  crypto: boolean;
}> {
  const now = ctx.clock.now();
  const [ledger, keys] = await Promise.all([
    ctx.store.ledger(account.id, LEDGER_ROWS),
    ctx.store.listKeys(account.id),
  ]);
  return {
    balance: account.balance,
    ledger,
    keyNames: Object.fromEntries(keys.map((k) => [k.id, k.label ?? `${k.prefix}…`])),
    packages: keys.filter((k) => k.packageUntil !== null).map((k) => keyView(k, now)),
    unlimitedUntil: iso(account.unlimitedUntil),
    provider: ctx.payments.name,
    crypto: ctx.cryptoPayments !== null,
  };
}

/** The provider a top-up's `method` names: absent or "card" the configured one, "crypto" BTCPay Server (D32). */
function providerFor(ctx: AppContext, rawMethod: unknown): PaymentProvider {
  if (rawMethod === undefined || rawMethod === null || rawMethod === '' || rawMethod === 'card')
    return ctx.payments;
  if (rawMethod === 'crypto') {
    if (ctx.cryptoPayments) return ctx.cryptoPayments;
    throw invalidField('method', 'Crypto payments are not configured on this gateway');
  }
  throw invalidField('method', 'The payment method is "card" or "crypto"');
}

/** Start a top-up of `rawAmount` (the rule set's money) with the form's idempotency id, by card or in crypto. */
export async function topUp(
  ctx: AppContext,
  account: Account,
  rawAmount: unknown,
  rawId: unknown,
  actor?: Actor,
  rawMethod?: unknown,
): Promise<TopUpResult> {
  const provider = providerFor(ctx, rawMethod);
  const units = v.amount(ctx.rules, rawAmount);
  if (typeof rawId !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(rawId)) {
    throw invalidField('topUpId', 'The form has expired; reload the page and try again');
  }
  provider.checkAmount(units);
  return provider.startTopUp({
    accountId: account.id,
    email: account.email,
    units,
    idempotencyKey: rawId,
    actor,
  });
}
