/** What auto top-up tells the customer (D30's event shapes): a charge that succeeded, or one that failed. */
import type { Notice } from '../../gateway/notify/events';
import { formatMoney, type RuleSet } from '../../gateway/policy/ruleset';

/** An auto top-up notice (its type is one of the two topup.auto.* events). */
export type AutoTopUpNotice = Notice;

/** Why a charge failed, in words, from Stripe's error code. */
export function failureReason(code: string): string {
  switch (code) {
    case 'authentication_required':
      return 'your bank asks you to confirm this payment, which cannot be done while you are away';
    case 'card_declined':
      return 'the card was declined';
    case 'expired_card':
      return 'the card has expired';
    case 'insufficient_funds':
      return 'the card has insufficient funds';
    case 'card_removed':
      return 'the card was removed';
    default:
      return `the payment failed (${code})`;
  }
}

/** Crossing `seq` was topped up: `units` credited, the balance now `balance`, with receipt `receipt`. */
export function autoTopUpSucceededNotice(
  rules: RuleSet,
  accountId: string,
  seq: number,
  units: number,
  balance: number,
  receipt: string | null,
): Notice {
  return {
    type: 'topup.auto.succeeded',
    accountId,
    name: `topup.auto.succeeded:${accountId}:${seq}`,
    data: {
      accountId,
      amount: formatMoney(rules, units),
      balance: formatMoney(rules, balance),
      unit: rules.moneyUnit,
      receipt,
    },
  };
}

/** Crossing `seq`'s charge failed (`code`); `failures` in a row, and whether that turned auto top-up off. */
export function autoTopUpFailedNotice(
  rules: RuleSet,
  accountId: string,
  seq: number,
  units: number,
  code: string,
  failures: number,
  switchedOff: boolean,
): Notice {
  return {
    type: 'topup.auto.failed',
    accountId,
    name: `topup.auto.failed:${accountId}:${seq}`,
    data: {
      accountId,
      amount: formatMoney(rules, units),
      unit: rules.moneyUnit,
      code,
      reason: failureReason(code),
      failures,
      switchedOff,
    },
  };
}
