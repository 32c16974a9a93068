/** The keys port: API keys, key restrictions, IP slots and the whitelist. */
import type { KeyQuery } from '../listing';
import type {
  ApiKey,
  KeyBurst,
  KeyRestrictions,
  NewKey,
  NewSecret,
  SlotView,
  WhitelistEntry,
} from '../types';

/** Keys and addresses of an account. Operations on an unknown account or key id → StoreConflict('not_found'). */
export interface KeyStore {
  createKey(input: NewKey, now: number): Promise<ApiKey>;
  getKey(id: string): Promise<ApiKey | null>;
  listKeys(accountId: string): Promise<ApiKey[]>;
  /** Admin listing: one page of keys across accounts, filtered and ordered. */
  listKeyPage(query: KeyQuery): Promise<ApiKey[]>;
  /** Revoke an active key; an already revoked key → StoreConflict('already_revoked') (its revokedAt is kept). */
  revokeKey(id: string, now: number): Promise<ApiKey>;
  /** Set a key's label (null: none), active or revoked; unknown → StoreConflict('not_found'). */
  setKeyLabel(id: string, label: string | null): Promise<ApiKey>;
  /** Current (non-expired at `now`) slots of a scope ("key:…" or "account:…"). */
  listSlots(scope: string, mode: 'fixed' | 'sliding', windowMs: number, now: number): Promise<SlotView[]>;
  /**
   * Add a whitelist entry; overlap with another account's entry → StoreConflict('whitelist_overlap') (D18). The same
   * block again for the same account returns the existing entry; a malformed CIDR → 'invalid_input'. The stored
   * cidr is canonical (network address, RFC 5952 for IPv6).
   */
  addWhitelist(accountId: string, cidr: string, now: number): Promise<WhitelistEntry>;
  /** Unknown entry, or another account's → StoreConflict('not_found'). */
  removeWhitelist(accountId: string, entryId: string): Promise<void>;
  listWhitelist(accountId: string): Promise<WhitelistEntry[]>;

  /* --- key restrictions (D29) --- */
  /**
   * Set a key's restrictions (null, or both lists empty: none), active or revoked; unknown → 'not_found'. The store
   * stores what it is given: the accounts service validates and canonicalises the input first
   * (gateway/policy/restrictions.ts normaliseRestrictions). Like a revocation, the change is seen by identification
   * within 1 s (D19): the key identity caches are invalidated on the same path. The returned key carries
   * `restrictions` only when it has some.
   */
  setKeyRestrictions(id: string, restrictions: KeyRestrictions | null): Promise<ApiKey>;

  /* --- a key's secrets (D39) --- */
  /**
   * Give an active key a new secret, keeping everything else (id, label, kind, slots, restrictions, usage, package);
   * the current secret keeps working until `previousUntil` (null, or not after `now`: it stops at once), and a secret
   * still in an earlier overlap stops now. Seen by identification within 1 s (D19). Revoked → 'already_revoked'.
   */
  rotateKey(id: string, secret: NewSecret, previousUntil: number | null, now: number): Promise<ApiKey>;
  /** Set (null: clear) the end the owner chose for a key; unknown → 'not_found'. Seen within 1 s, like a revocation. */
  setKeyExpiry(id: string, expiresAt: number | null): Promise<ApiKey>;
  /**
   * Set (null: clear) a key's own burst limits, active or revoked; each window a whole number ≥ 1 ('invalid_input'
   * otherwise), at least one window; unknown → 'not_found'. Seen by every process within 1 s, like a revocation.
   */
  setKeyBurst(id: string, burst: KeyBurst | null): Promise<ApiKey>;
  /**
   * Revoke the active key this hash is a working secret of (the current one, or the previous one in its overlap at
   * `now`): the leaked-key report (D39). The key revoked, or null when no active key has this secret.
   */
  revokeKeyByHash(hash: string, now: number): Promise<ApiKey | null>;
}
