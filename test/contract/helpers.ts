/** Helpers of the store contract suite: plan builders, unique ids, snapshots read through the interface only. */
import { utcDay } from '../../gateway/core/clock';
import type {
  Account,
  AdmissionPlan,
  AdmissionResult,
  ApiKey,
  CounterSpec,
  LedgerEntry,
  SlotSpec,
  SlotView,
  UsageRow,
} from '../../gateway/store/types';
import type { Store } from '../../gateway/store/ports';

export type StoreFactory = () => Promise<{ store: Store; cleanup(): Promise<void> }>;

/** Holds the store under test for one describe block (beforeAll / afterAll). */
export interface StoreHolder {
  readonly store: Store;
}

/** 2026-11-22 10:00:00 UTC: the suite's "now". */
export const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
export const DAY0 = utcDay(T0);
export const HOUR = 3_600_000;
export const WINDOW = 24 * HOUR;

let seq = 0;
/** A name unique within this process run and across runs against one database. */
export function uid(prefix: string): string {
  seq += 1;
  return `${prefix}${Date.now().toString(36)}${process.pid.toString(36)}${seq}`;
}

/** A plan with defaults: now T0, no slots, no counters, overflow refused with quota_exceeded, no usage. */
export function plan(p: Partial<AdmissionPlan> = {}): AdmissionPlan {
  const now = p.now ?? T0;
  return {
    id: p.id ?? uid('plan_'),
    now,
    day: p.day ?? utcDay(now),
    slots: p.slots ?? [],
    free: p.free ?? [],
    overflow: p.overflow ?? { kind: 'refuse', code: 'quota_exceeded' },
    usage: p.usage ?? [],
    keyId: p.keyId ?? null,
    ...(p.units === undefined ? {} : { units: p.units }),
  };
}

/** A slot spec: capacity 2, fixed mode, 24 h, key_ip_limit unless told. */
export function slot(scope: string, member: string, o: Partial<SlotSpec> = {}): SlotSpec {
  return { scope, member, capacity: 2, mode: 'fixed', windowMs: WINDOW, refuse: 'key_ip_limit', ...o };
}

/** A counter spec. */
export function counter(id: string, limit: number): CounterSpec {
  return { id, limit };
}

/** Billing to an account at `price`, refused with no_credits. */
export function bill(accountId: string, price = 1): AdmissionPlan['overflow'] {
  return { kind: 'bill', accountId, price, refuse: 'no_credits' };
}

/** A new account holding `balance` units. */
export async function account(store: Store, balance = 0): Promise<Account> {
  const a = await store.createAccount({ email: `${uid('u')}@example.org` }, T0);
  if (balance > 0) await store.credit(a.id, balance, null, T0);
  return (await store.getAccount(a.id)) as Account;
}

/** A new pay-per-use key of the account. */
export async function key(store: Store, accountId: string, kind: ApiKey['kind'] = 'payg'): Promise<ApiKey> {
  return store.createKey({ accountId, hash: uid('hash_'), prefix: 'gk_test0', kind }, T0);
}

/**
 * Expect the promise to reject (a fault). Not `rejects.toThrow()`: errors made by a native driver loaded in another
 * jest realm are not `instanceof Error` here.
 */
export async function expectFault(p: Promise<unknown>): Promise<void> {
  const outcome = await p.then(
    () => 'resolved',
    () => 'rejected',
  );
  expect(outcome).toBe('rejected');
}

/**
 * What the ledger's charge rows add up to (positive). D35: charges are rows per (account, key, UTC hour) on a store
 * that folds them, so a test counts money, not rows; a kept admission is in the ledger, one in flight may not be.
 */
export function chargedIn(ledger: readonly LedgerEntry[]): number {
  return ledger.filter((e) => e.kind === 'charge').reduce((sum, e) => sum - e.amount, 0);
}

/** The admitted result or a failed expectation. */
export function admitted(r: AdmissionResult): Extract<AdmissionResult, { admitted: true }> {
  if (!r.admitted) throw new Error(`expected an admission, got refusal ${r.code}`);
  return r;
}

/** How many more free requests the counter grants today (consumes them: call at the end of a test). */
export async function remainingFree(store: Store, id: string, limit: number, day = DAY0): Promise<number> {
  let n = 0;
  while (n <= limit) {
    const r = await store.admit(plan({ day, free: [counter(id, limit)] }));
    if (!r.admitted) return n;
    n += 1;
  }
  return n;
}

export interface Snapshot {
  balance: number | undefined;
  ledger: LedgerEntry[];
  slots: SlotView[][];
  usage: UsageRow[];
}

/** Everything observable about an account, some slot scopes and usage subjects. */
export async function snapshot(
  store: Store,
  o: { accountId?: string; scopes?: SlotSpec[]; subjects?: string[]; now?: number },
): Promise<Snapshot> {
  const now = o.now ?? T0;
  const acc = o.accountId ? await store.getAccount(o.accountId) : null;
  return {
    balance: acc?.balance,
    ledger: o.accountId ? await store.ledger(o.accountId, 1000) : [],
    slots: await Promise.all((o.scopes ?? []).map((s) => store.listSlots(s.scope, s.mode, s.windowMs, now))),
    usage: await store.usage(o.subjects ?? [], '2000-01-01', '2100-01-01'),
  };
}
