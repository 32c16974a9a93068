/**
 * Public text and facts of admission refusals: the one message table (core/errors.ts MESSAGES) plus what this
 * refusal knows (D20: key_ip_limit's detail says when the next slot frees).
 */
import { MESSAGES, type ErrorFacts, type RefusalCode } from '../core/errors';
import type { AdmissionPlan } from '../store/types';
import { resetUnix, secondsToReset } from './headers';

const TOP_UP: ErrorFacts = Object.freeze({ topUp: true });

/** The detail and facts of a refusal by the store's admission step. */
export function describeRefusal(
  code: RefusalCode,
  plan: AdmissionPlan,
  nextSlotFreeAt: number | undefined,
): { detail: string; facts: ErrorFacts } {
  const now = plan.now;
  const resetFacts: ErrorFacts = { retryAfter: secondsToReset(now), quotaReset: resetUnix(now) };
  const slotFacts: ErrorFacts = nextSlotFreeAt === undefined ? {} : { nextSlotFreeAt };
  const when = nextSlotFreeAt === undefined ? 'later' : `at ${new Date(nextSlotFreeAt).toISOString()}`;
  switch (code) {
    case 'quota_exceeded':
      // An account that pays per request gets its requests back by topping up: the answer points at the page.
      return plan.overflow.kind === 'bill'
        ? {
            detail:
              'The daily free allowance is used up and the account has no credits left; it resets at 00:00 UTC.',
            facts: { ...resetFacts, topUp: true },
          }
        : { detail: MESSAGES.quota_exceeded, facts: resetFacts };
    case 'no_credits':
      return { detail: MESSAGES.no_credits, facts: TOP_UP };
    case 'key_ip_limit': {
      const capacity = plan.slots.find((s) => s.refuse === 'key_ip_limit')?.capacity;
      return {
        detail: `All ${capacity ?? ''} IP slots of this key are held by other addresses; the next slot frees ${when}.`,
        facts: slotFacts,
      };
    }
    case 'account_ip_limit': {
      const capacity = plan.slots.find((s) => s.refuse === 'account_ip_limit')?.capacity;
      return {
        detail: `The account's Unlimited plan allows ${capacity ?? ''} addresses per 24 hours and they are in use; the next frees ${when}.`,
        facts: slotFacts,
      };
    }
    case 'account_suspended':
    case 'key_restricted':
    case 'rate_limited':
    case 'missing_key':
    case 'invalid_key':
    case 'key_revoked':
      return { detail: MESSAGES[code], facts: {} };
  }
}
