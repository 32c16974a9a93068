/**
 * The events an account is told about (D30): their idempotent ids, webhook data and e-mail text. An event id is a
 * hash of what makes the event unique (the allowance of this key on this day, this crossing of the threshold, this
 * end of a plan, this key's revocation), so every instance that sees it computes the same id.
 */
import { createHash, randomUUID } from 'node:crypto';
import { formatMoney, type RuleSet } from '../policy/ruleset';
import type { NotificationType } from '../store/notifications';

/** An event before it is recorded: its type, account, unique name and data. */
export interface Notice {
  type: NotificationType;
  accountId: string;
  /** What makes it unique; hashed into the event id. */
  name: string;
  data: Record<string, unknown>;
}

/** The stored id of a notice ("evt_" + 32 hex characters of SHA-256 of its name). */
export function eventId(name: string): string {
  return `evt_${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The free allowance (per key in A, per account in B) reached 80 % or 100 % today. */
export function allowanceNotice(
  accountId: string,
  keyId: string | null,
  percent: 80 | 100,
  quota: { used: number; limit: number },
  day: string,
): Notice {
  const subject = keyId ?? accountId;
  return {
    type: percent === 100 ? 'allowance.100' : 'allowance.80',
    accountId,
    name: `allowance.${percent}:${subject}:${day}`,
    data: {
      accountId,
      keyId,
      percent,
      used: quota.used,
      limit: quota.limit,
      day,
      resetsAt: iso(Date.parse(`${day}T00:00:00Z`) + 86_400_000),
    },
  };
}

/** The balance fell below the account's threshold (crossing number `seq`). */
export function lowBalanceNotice(
  rules: RuleSet,
  accountId: string,
  seq: number,
  balance: number,
  threshold: number,
): Notice {
  return {
    type: 'balance.low',
    accountId,
    name: `balance.low:${accountId}:${seq}`,
    data: {
      accountId,
      balance: formatMoney(rules, balance),
      threshold: formatMoney(rules, threshold),
      unit: rules.moneyUnit,
    },
  };
}

/** An Unlimited package (A: its key) or plan (B) ends at `until`, within 7 days. */
export function endingNotice(accountId: string, keyId: string | null, until: number): Notice {
  return {
    type: 'unlimited.ending',
    accountId,
    name: `unlimited.ending:${keyId ?? accountId}:${until}`,
    data: { accountId, keyId, endsAt: iso(until) },
  };
}

/** A key was revoked (whoever revoked it); `reported`: by a leaked-key report (D39). */
export function revokedNotice(
  key: {
    id: string;
    accountId: string;
    prefix: string;
    label: string | null;
    revokedAt: number | null;
  },
  reason?: 'reported',
): Notice {
  return {
    type: 'key.revoked',
    accountId: key.accountId,
    name: `key.revoked:${key.id}`,
    data: {
      accountId: key.accountId,
      keyId: key.id,
      prefix: key.prefix,
      label: key.label,
      revokedAt: key.revokedAt === null ? null : iso(key.revokedAt),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

/** A key ends (the end date its owner set, D39) at `expiresAt`, within the reminder's days: once per key and end. */
export function expiringNotice(key: {
  id: string;
  accountId: string;
  prefix: string;
  label: string | null;
  expiresAt: number;
}): Notice {
  return {
    type: 'key.expiring',
    accountId: key.accountId,
    name: `key.expiring:${key.id}:${key.expiresAt}`,
    data: {
      accountId: key.accountId,
      keyId: key.id,
      prefix: key.prefix,
      label: key.label,
      expiresAt: iso(key.expiresAt),
    },
  };
}

/** The dashboard's "send test event": a new event every time. */
export function testNotice(accountId: string): Notice {
  return {
    type: 'notification.test',
    accountId,
    name: `notification.test:${randomUUID()}`,
    data: { accountId, message: 'This is a test event from your dashboard.' },
  };
}

const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
/** An amount as people read it: "5.00", not "5.0000" (sub-cent digits kept when there are any). */
const amount = (v: unknown): string => str(v).replace(/(\.\d\d(?:\d*[1-9])?)0+$/, '$1');

/** The subject and text of an event's e-mail. */
export function emailOf(
  type: NotificationType,
  data: Record<string, unknown>,
): { subject: string; text: string } {
  const key = data['keyId'] ? ` of key ${str(data['keyId'])}` : '';
  const lines = (subject: string, ...body: string[]) => ({
    subject,
    text: [
      'Hello,',
      '',
      ...body,
      '',
      'You can change these alerts on the Notifications page of your dashboard.',
    ].join('\n'),
  });
  switch (type) {
    case 'allowance.80':
    case 'allowance.100':
      return lines(
        `Free allowance ${str(data['percent'])} % used`,
        `The free daily allowance${key} is ${str(data['percent'])} % used: ${str(data['used'])} of ${str(data['limit'])} requests on ${str(data['day'])} (UTC).`,
        `It resets at ${str(data['resetsAt'])}.`,
      );
    case 'balance.low':
      return lines(
        'Your balance is low',
        `Your balance is ${amount(data['balance'])} ${str(data['unit'])}, below the ${amount(data['threshold'])} ${str(data['unit'])} you chose.`,
        'Top up in the dashboard to keep paid requests going.',
      );
    case 'unlimited.ending':
      return lines(
        data['keyId'] ? 'Your Unlimited package ends soon' : 'Your Unlimited plan ends soon',
        `The Unlimited ${data['keyId'] ? `package${key}` : 'plan'} ends at ${str(data['endsAt'])}.`,
      );
    case 'key.revoked':
      return lines(
        'A key was revoked',
        `The key ${str(data['prefix'])}… (${str(data['keyId'])}) was revoked at ${str(data['revokedAt'])}. Requests with it are refused.`,
        ...(data['reason'] === 'reported'
          ? [
              'Someone who found this key in public (a repository, a web page, an app) reported it as leaked, so it was revoked to protect your account.',
              'Create a new key in the dashboard and keep it out of public code.',
            ]
          : []),
      );
    case 'key.expiring':
      return lines(
        'A key ends soon',
        `The key ${str(data['prefix'])}… (${str(data['keyId'])}${data['label'] ? `, "${str(data['label'])}"` : ''}) stops working at ${str(data['expiresAt'])}, the end date set for it.`,
        'Create or rotate a key in the dashboard before then, or change or remove the end date on the key page.',
      );
    case 'notification.test':
      return lines('Test notification', str(data['message']));
    case 'topup.auto.succeeded':
      return lines(
        'Your balance was topped up automatically',
        `Your balance fell below the threshold you chose, so your saved card was charged for ${amount(data['amount'])} ${str(data['unit'])}. Your balance is now ${amount(data['balance'])} ${str(data['unit'])}.`,
        ...(data['receipt']
          ? [`Receipt ${str(data['receipt'])} is on the Billing page of your dashboard.`]
          : []),
      );
    case 'topup.auto.failed':
      return lines(
        data['switchedOff'] ? 'Automatic top-up failed and was turned off' : 'Automatic top-up failed',
        `Your saved card could not be charged for ${amount(data['amount'])} ${str(data['unit'])}: ${str(data['reason'])}.`,
        data['switchedOff']
          ? `After ${str(data['failures'])} failures in a row, automatic top-up is now off. Save a card again on the Credit page to turn it back on.`
          : 'Top up in the dashboard, or save another card on the Credit page (saving a card tries again at once).',
      );
  }
}
