/** Key operations on the signed-in account only: a key of another account is "not found" (never "forbidden"). */
import type { Actor } from '../../gateway/accounts/audit';
import { StoreConflict, type ApiKey } from '../../gateway/store/types';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import { refusing } from './refusals';
import { keyView, money, slotView, type KeyJson, type SlotJson } from './views';

type Deps = Pick<AppContext, 'accounts' | 'rules' | 'clock'>;

/** A key with its IP slots (spec 5.5: "the dashboard lists the addresses occupying a key's slots"). */
export interface KeyDetail extends KeyJson {
  slotCapacity: number;
  slots: SlotJson[];
  /** Key restrictions (issue 15 item 4): empty lists when none. */
  restrictions: { referrers: string[]; cidrs: string[] };
}

/** The account's keys, newest first. */
export async function listKeys(d: Deps, accountId: string): Promise<KeyJson[]> {
  const now = d.clock.now();
  return (await d.accounts.keys(accountId)).map((k) => keyView(k, now));
}

/** The account's key by id; another account's key is not found. */
export function ownKey(d: Deps, accountId: string, keyId: string): Promise<ApiKey> {
  return refusing(d.rules, () => d.accounts.key(keyId, accountId));
}

/** A key and its occupied slots. */
export async function keyDetail(d: Deps, accountId: string, keyId: string): Promise<KeyDetail> {
  const detail = await d.accounts.keyDetail(await ownKey(d, accountId, keyId));
  const view = keyView(detail.key, d.clock.now());
  const restrictions = detail.key.restrictions ?? { referrers: [], cidrs: [] };
  return { ...view, slotCapacity: detail.slotCapacity, slots: detail.slots.map(slotView), restrictions };
}

/** Create a pay-per-use key (a test key with `opts.test`, D40); the secret is returned here once (D14). */
export async function createKey(
  d: Deps,
  accountId: string,
  label: string | null,
  actor?: Actor,
  opts: { test?: boolean; expiresAt?: number | null } = {},
): Promise<{ key: KeyJson; secret: string; googleKey: string }> {
  const created = await refusing(d.rules, () => d.accounts.createKey(accountId, label, actor, opts));
  return { key: keyView(created.key, d.clock.now()), secret: created.secret, googleKey: created.googleKey };
}

/** Give one of the account's keys a new secret, returned here once (D39); the old one works `overlapMs` more. */
export async function rotateKey(
  d: Deps,
  accountId: string,
  keyId: string,
  overlapMs: number,
  actor?: Actor,
): Promise<{ key: KeyJson; secret: string; googleKey: string }> {
  const key = await ownKey(d, accountId, keyId);
  try {
    const rotated = await refusing(d.rules, () => d.accounts.rotateKey(key, overlapMs, actor));
    return { key: keyView(rotated.key, d.clock.now()), secret: rotated.secret, googleKey: rotated.googleKey };
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'already_revoked') {
      throw new DashboardError('already_revoked', 'This key is revoked');
    }
    throw err;
  }
}

/** Set (null: remove) the end date of one of the account's keys. */
export async function setKeyExpiry(
  d: Deps,
  accountId: string,
  keyId: string,
  expiresAt: number | null,
  actor?: Actor,
): Promise<KeyJson> {
  const key = await ownKey(d, accountId, keyId);
  const changed = await refusing(d.rules, () => d.accounts.setKeyExpiry(key, expiresAt, actor));
  return keyView(changed, d.clock.now());
}

/** Revoke one of the account's keys. */
export async function revokeKey(d: Deps, accountId: string, keyId: string, actor?: Actor): Promise<KeyJson> {
  const key = await ownKey(d, accountId, keyId);
  try {
    return keyView(await d.accounts.revokeKey(key, actor), d.clock.now());
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'already_revoked') {
      throw new DashboardError('already_revoked', 'This key is already revoked');
    }
    throw err;
  }
}

/** Rename one of the account's keys (`null`: no label, refused where every key is labelled). */
export async function renameKey(
  d: Deps,
  accountId: string,
  keyId: string,
  label: string | null,
  actor?: Actor,
): Promise<KeyJson> {
  const key = await ownKey(d, accountId, keyId);
  const renamed = await refusing(d.rules, () => d.accounts.renameKey(key, label, actor));
  return keyView(renamed, d.clock.now());
}

/** A: buy an Unlimited package from the balance (D17): its own key, valid one calendar month. */
export async function buyPackage(
  d: Deps,
  accountId: string,
  balance: number,
  label: string | null,
  actor?: Actor,
): Promise<{
  key: KeyJson;
  secret: string;
  googleKey: string;
  price: string | number;
  balance: string | number;
}> {
  const bought = await refusing(d.rules, () =>
    d.accounts.buyPackage({ id: accountId, balance }, label, actor),
  );
  return {
    key: keyView(bought.key, d.clock.now()),
    secret: bought.secret,
    googleKey: bought.googleKey,
    price: money(d.rules, bought.price),
    balance: money(d.rules, bought.balance),
  };
}
