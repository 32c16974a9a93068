/**
 * Account endpoints of the drop-in hosts (issue 16 item 4): LocationIQ `/v1/balance`, ipinfo `/me`, Nominatim
 * `/status`. Never counted (no admission, no slot, no usage row): the caller is identified like any request (D9
 * order, same refusals), and the key's or account's free allowance is read from the usage history.
 */
import type { IncomingMessage } from 'node:http';
import type { AccountRequest, AccountView, Adapter, AdapterRequest, Rate } from '../../adapters/types';
import { utcDay } from '../core/clock';
import { MESSAGES, type ErrorFacts, type GatewayCode } from '../core/errors';
import type { CompiledConfig } from '../config/compile';
import { clientAddress } from '../net/client-address';
import { findCredential } from '../policy/credentials';
import { identify, isRefusal, type Identity } from '../policy/identity';
import { planAdmission } from '../policy/planner';
import type { AdmissionPlan, Store } from '../store/types';
import { resetUnix } from './headers';
import { isStoreUnavailable } from './store-faults';

/** What answering an account endpoint needs. */
export interface AccountDeps {
  config: CompiledConfig;
  store: Store;
  now: number;
}

/** An account answer, or a refusal for the pipeline to render through the adapter. */
export type AccountOutcome =
  | { kind: 'answer'; view: AccountView | null }
  | { kind: 'refuse'; code: GatewayCode; detail: string; facts: ErrorFacts };

/** The daily free allowance of an admission plan, or null when its overflow is free (Unlimited, D5/D17). */
export function rateOf(plan: AdmissionPlan, quota: { used: number; limit: number } | null): Rate | null {
  if (quota === null || plan.overflow.kind === 'free') return null;
  return { limit: quota.limit, remaining: Math.max(0, quota.limit - quota.used), reset: resetUnix(plan.now) };
}

/** Identifies the caller (D9), then reads its allowance and usage; nothing is counted. */
export async function accountCall(
  deps: AccountDeps,
  adapter: Adapter<unknown>,
  request: AccountRequest<unknown>,
  areq: AdapterRequest,
  form: Map<string, string[]> | null,
  req: IncomingMessage,
): Promise<AccountOutcome> {
  if (!request.needsKey) return { kind: 'answer', view: null };
  const { config, store } = deps;
  const credential = findCredential(
    areq,
    config.rules.credentialPositions,
    adapter.providerCredentials(areq),
    form,
  );
  if (credential.kind === 'conflict') {
    const parameter = credential.positions.join(', ');
    return {
      kind: 'refuse',
      code: 'conflicting_credentials',
      detail: `Different keys were sent in ${parameter}.`,
      facts: { parameter },
    };
  }
  const address = clientAddress(req.socket.remoteAddress, req.headers, config.trustProxy);
  if (!address) throw new Error('the connection has no peer address');
  try {
    const found = await identify({
      rules: config.rules,
      store,
      pepper: config.keyPepper,
      credential,
      address,
      anonymousAllowed: false,
    });
    if (isRefusal(found)) return { kind: 'refuse', code: found.code, detail: found.detail, facts: {} };
    return { kind: 'answer', view: await readView(deps, found, address) };
  } catch (err) {
    if (!isStoreUnavailable(err)) throw err;
    return {
      kind: 'refuse',
      code: 'store_unavailable',
      detail: MESSAGES.store_unavailable,
      facts: {},
    };
  }
}

/** The caller's allowance today and its usage today and this month, from the usage history (one store read). */
async function readView(
  deps: AccountDeps,
  identity: Identity,
  address: NonNullable<ReturnType<typeof clientAddress>>,
): Promise<AccountView> {
  const { config, store, now } = deps;
  const plan = planAdmission({ rules: config.rules, identity, address, now, id: 'account-view' });
  const today = utcDay(now);
  const subject = plan.usage[0] as string;
  const rows = await store.usage(plan.usage, `${today.slice(0, 8)}01`, today);
  let month = 0;
  let todayCount = 0;
  const freeToday = new Map<string, number>();
  for (const row of rows) {
    if (row.subject === subject) month += row.free + row.billed;
    if (row.subject === subject && row.day === today) todayCount = row.free + row.billed;
    if (row.day === today) freeToday.set(row.subject, row.free);
  }
  // The counter with the fewest remaining among those the history records (a network counter is not recorded).
  const counters = plan.free.filter((c) => freeToday.has(c.id) || plan.usage.includes(c.id));
  const tightest = counters
    .map((c) => ({ used: freeToday.get(c.id) ?? 0, limit: c.limit }))
    .sort((a, b) => a.limit - a.used - (b.limit - b.used))[0];
  const rate = rateOf(plan, tightest ?? null);
  const account = identity.kind === 'anonymous' ? null : identity.account;
  const price = config.rules.limits.pricePerRequest;
  const paid =
    plan.overflow.kind === 'bill' && account !== null && price > 0
      ? Math.floor(account.balance / price)
      : null;
  return { rate, today: todayCount, month, paid };
}
