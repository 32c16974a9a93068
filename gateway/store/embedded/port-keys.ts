/** The embedded store's keys part (KeyStore): API keys, their restrictions, IP slots and the whitelist. */
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { KeyQuery } from '../listing';
import type { KeyStore } from '../ports';
import type {
  ApiKey,
  KeyBurst,
  KeyRestrictions,
  NewKey,
  NewSecret,
  SlotView,
  WhitelistEntry,
} from '../types';
import * as secrets from './key-secrets';
import * as keys from './keys';
import * as listing from './listing';
import * as reports from './reports';
import { setKeyRestrictions } from './restrictions';
import * as whitelist from './whitelist';

/** Keys and addresses on one SQLite connection; `changed` forgets cached key identities. */
export class EmbeddedKeys implements KeyStore {
  constructor(
    private readonly db: Database.Database,
    private readonly knex: Knex,
    private readonly changed: <T>(result: T) => T,
  ) {}

  async createKey(input: NewKey, now: number): Promise<ApiKey> {
    return this.db.transaction(() => keys.insertKey(this.db, input, now)).immediate();
  }
  async getKey(id: string): Promise<ApiKey | null> {
    return keys.getKey(this.db, id);
  }
  async listKeys(accountId: string): Promise<ApiKey[]> {
    return keys.listKeys(this.db, accountId);
  }
  async listKeyPage(query: KeyQuery): Promise<ApiKey[]> {
    return listing.listKeyPage(this.knex, query);
  }
  async revokeKey(id: string, now: number): Promise<ApiKey> {
    return this.changed(keys.revokeKey(this.db, id, now));
  }
  async setKeyLabel(id: string, label: string | null): Promise<ApiKey> {
    // A cached key record carries the old label: a rename through this store is seen at once, like a revocation.
    return this.changed(keys.setKeyLabel(this.db, id, label));
  }
  async setKeyRestrictions(id: string, restrictions: KeyRestrictions | null): Promise<ApiKey> {
    // Seen at once by this process, like a revocation; other processes on the file within the cache's 500 ms.
    return this.changed(setKeyRestrictions(this.db, id, restrictions));
  }
  async rotateKey(id: string, secret: NewSecret, previousUntil: number | null, now: number): Promise<ApiKey> {
    // The old secret's cached identity carries no `secretUntil`: forget it so the overlap applies at once.
    return this.changed(secrets.rotateKey(this.db, id, secret, previousUntil, now));
  }
  async setKeyExpiry(id: string, expiresAt: number | null): Promise<ApiKey> {
    return this.changed(secrets.setKeyExpiry(this.db, id, expiresAt));
  }
  async setKeyBurst(id: string, burst: KeyBurst | null): Promise<ApiKey> {
    return this.changed(secrets.setKeyBurst(this.db, id, burst));
  }
  async revokeKeyByHash(hash: string, now: number): Promise<ApiKey | null> {
    return this.changed(secrets.revokeKeyByHash(this.db, hash, now));
  }
  async listSlots(
    scope: string,
    mode: 'fixed' | 'sliding',
    windowMs: number,
    now: number,
  ): Promise<SlotView[]> {
    return reports.listSlots(this.db, scope, mode, windowMs, now);
  }
  async addWhitelist(accountId: string, cidr: string, now: number): Promise<WhitelistEntry> {
    return whitelist.addWhitelist(this.db, accountId, cidr, now);
  }
  async removeWhitelist(accountId: string, entryId: string): Promise<void> {
    whitelist.removeWhitelist(this.db, accountId, entryId);
  }
  async listWhitelist(accountId: string): Promise<WhitelistEntry[]> {
    return whitelist.listWhitelist(this.db, accountId);
  }
}
