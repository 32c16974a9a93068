/** Admission plans the store benches run: what the gateway plans for a request of the bench's own scenarios. */
import type { AdmissionPlan } from '../../gateway/store/types';

/**
 * A keyed, billed request under rule set A with the free allowance used up: the key's IP slot (fixed window), the
 * key's and the network's daily counters at limit 0, billed 1 unit to the account.
 */
export function keyedBilledPlan(
  id: string,
  now: number,
  day: string,
  keyId: string,
  accountId: string,
  network: string,
): AdmissionPlan {
  return {
    id,
    now,
    day,
    slots: [
      {
        scope: `key:${keyId}`,
        member: '127.0.0.1',
        capacity: 2,
        mode: 'fixed',
        windowMs: 86_400_000,
        refuse: 'key_ip_limit',
      },
    ],
    free: [
      { id: `key:${keyId}`, limit: 0 },
      { id: `network:${network}`, limit: 0 },
    ],
    overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
    usage: [`key:${keyId}`, `account:${accountId}`],
    keyId,
  };
}
