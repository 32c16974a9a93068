/** Who a request is counted to (spec 5.1, 5.6): a key, a whitelisted account (B), or the anonymous address. */
import type { Account, ApiKey } from '../store/types';
import type { Clock } from '../core/clock';
import type { AdmissionStore } from '../store/ports';
import { presentedKeyHash } from '../core/keys';
import { MESSAGES, type RefusalCode } from '../core/errors';
import type { IpAddress } from '../net/address';
import type { CredentialResult } from './credentials';
import type { RuleSet } from './ruleset';

export type Identity =
  | { kind: 'anonymous' }
  | { kind: 'key'; key: ApiKey; account: Account }
  | { kind: 'whitelist'; account: Account };

/** A refusal is a value (STYLE.md); the pipeline renders it. */
export interface Refusal {
  code: RefusalCode;
  detail: string;
}

/** What identification needs. */
export interface IdentifyInput {
  rules: RuleSet;
  /** Only the two identification lookups are used. */
  store: Pick<AdmissionStore, 'findKeyByHash' | 'findWhitelistedAccount'>;
  pepper: string;
  credential: Exclude<CredentialResult, { kind: 'conflict' }>;
  address: IpAddress;
  /** Whether the host serves requests without a credential (spec 5.3). */
  anonymousAllowed: boolean;
  /** The gateway clock: a rotated-out secret (D39) and a key's end date are judged against it (read only then). */
  clock: Clock;
}

const SUSPENDED: Refusal = {
  code: 'account_suspended',
  detail: MESSAGES.account_suspended,
};

/**
 * Identify in D9 order: syntax → key known (a previous secret only within its overlap, D39) → not revoked (nor past
 * the end its owner set, answered like a revocation) → account not suspended. Key > whitelist > anonymous.
 */
export async function identify(input: IdentifyInput): Promise<Identity | Refusal> {
  const { credential, rules, store } = input;
  if (credential.kind === 'malformed') {
    return { code: 'invalid_key', detail: `The credential in ${credential.position} is malformed.` };
  }
  if (credential.kind === 'key') {
    const hash = presentedKeyHash(credential.value, input.pepper);
    if (hash === null) return { code: 'invalid_key', detail: MESSAGES.invalid_key };
    const found = await store.findKeyByHash(hash);
    if (!found) return { code: 'invalid_key', detail: MESSAGES.invalid_key };
    // D39: the secret before a rotation is no key's once its overlap has ended (judged per request: exact).
    if (found.secretUntil !== undefined && input.clock.now() >= found.secretUntil) {
      return { code: 'invalid_key', detail: MESSAGES.invalid_key };
    }
    const ended = found.key.expiresAt !== undefined && input.clock.now() >= found.key.expiresAt;
    if (found.key.status === 'revoked' || ended) {
      return {
        code: rules.revokedCode,
        detail: MESSAGES[rules.revokedCode],
      };
    }
    if (found.account.status === 'suspended') return SUSPENDED;
    return { kind: 'key', key: found.key, account: found.account };
  }
  if (rules.whitelist) {
    const account = await store.findWhitelistedAccount(input.address.toString());
    if (account) return account.status === 'suspended' ? SUSPENDED : { kind: 'whitelist', account };
  }
  if (!input.anonymousAllowed) {
    return { code: 'missing_key', detail: MESSAGES.missing_key };
  }
  return { kind: 'anonymous' };
}

/** Whether identification refused. */
export function isRefusal(x: Identity | Refusal): x is Refusal {
  return 'code' in x;
}
