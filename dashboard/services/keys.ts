/** Key operations on the signed-in account only: a key of another account is "not found" (never "forbidden"). */
import { addCalendarMonth } from '../../gateway/admin/month';
import { kindAt } from '../../gateway/admin/views';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import { formatMoney } from '../../gateway/policy/ruleset';
import { StoreConflict, type ApiKey, type NewKey } from '../../gateway/store/types';
import type { DashboardDeps } from '../deps';
import { DashboardError } from '../errors';
import { keyView, money, slotView, type KeyJson, type SlotJson } from './views';

type Deps = Pick<DashboardDeps, 'store' | 'rules' | 'clock' | 'pepper'>;

/** A key with its IP slots (spec 5.5: "the dashboard lists the addresses occupying a key's slots"). */
export interface KeyDetail extends KeyJson {
  slotCapacity: number;
  slots: SlotJson[];
}

/** The account's keys, newest first. */
export async function listKeys(d: Deps, accountId: string): Promise<KeyJson[]> {
  const now = d.clock.now();
  const keys = await d.store.listKeys(accountId);
  return keys.sort((a, b) => b.createdAt - a.createdAt).map((k) => keyView(k, now));
}

/** The account's key by id; another account's key is not found. */
export async function ownKey(d: Deps, accountId: string, keyId: string): Promise<ApiKey> {
  const key = await d.store.getKey(keyId);
  if (!key || key.accountId !== accountId)
    throw new DashboardError('not_found', 'No such key on your account');
  return key;
}

/** A key and its occupied slots. */
export async function keyDetail(d: Deps, accountId: string, keyId: string): Promise<KeyDetail> {
  const key = await ownKey(d, accountId, keyId);
  const now = d.clock.now();
  const { limits, slotMode } = d.rules;
  const slots = await d.store.listSlots(`key:${key.id}`, slotMode, limits.slotWindowMs, now);
  const capacity = kindAt(key, now) === 'unlimited' ? limits.slotsUnlimited : limits.slotsPayg;
  return { ...keyView(key, now), slotCapacity: capacity, slots: slots.map(slotView) };
}

function newKey(d: Deps, fields: Omit<NewKey, 'hash' | 'prefix'>): { secret: string; input: NewKey } {
  const secret = generateKey();
  return { secret, input: { ...fields, hash: hashKey(secret, d.pepper), prefix: keyPrefix(secret) } };
}

/** Create a pay-per-use key; the secret is returned here once and never again (D14). */
export async function createKey(
  d: Deps,
  accountId: string,
  label: string | null,
): Promise<{ key: KeyJson; secret: string }> {
  const { secret, input } = newKey(d, { accountId, label, kind: 'payg', packageUntil: null });
  const created = await d.store.createKey(input, d.clock.now());
  return { key: keyView(created, d.clock.now()), secret };
}

/** Revoke one of the account's keys. */
export async function revokeKey(d: Deps, accountId: string, keyId: string): Promise<KeyJson> {
  await ownKey(d, accountId, keyId);
  try {
    return keyView(await d.store.revokeKey(keyId, d.clock.now()), d.clock.now());
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'already_revoked') {
      throw new DashboardError('already_revoked', 'This key is already revoked');
    }
    throw err;
  }
}

/** A: buy an Unlimited package from the balance (D17): its own key, valid one calendar month. */
export async function buyPackage(
  d: Deps,
  accountId: string,
  balance: number,
  label: string | null,
): Promise<{ key: KeyJson; secret: string; price: string | number; balance: string | number }> {
  if (d.rules.unlimited !== 'package-key') {
    throw new DashboardError('not_in_rule_set', 'Unlimited is a plan on the account here, not a package');
  }
  const now = d.clock.now();
  const until = addCalendarMonth(now);
  const name = label ?? `Unlimited until ${new Date(until).toISOString().slice(0, 10)}`;
  const { secret, input } = newKey(d, { accountId, label: name, kind: 'unlimited', packageUntil: until });
  const price = d.rules.limits.packagePrice;
  try {
    const bought = await d.store.buyPackage(accountId, price, input, now);
    return {
      key: keyView(bought.key, now),
      secret,
      price: money(d.rules, price),
      balance: money(d.rules, bought.balance),
    };
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'insufficient_balance') {
      throw new DashboardError(
        'insufficient_balance',
        `The package costs ${formatMoney(d.rules, price)} EUR; your balance is ${formatMoney(d.rules, balance)} EUR. Top up first.`,
      );
    }
    throw err;
  }
}
