/** The shared store's keys part (KeyStore): keys and the whitelist in PostgreSQL, IP slots in Redis. */
import type { KeyQuery } from '../listing';
import type { KeyStore } from '../ports';
import { toKey } from '../rows';
import { liveSlots } from '../slot-view';
import type {
  ApiKey,
  KeyBurst,
  KeyRestrictions,
  NewKey,
  NewSecret,
  SlotView,
  WhitelistEntry,
} from '../types';
import type { SharedContext } from './context';
import { redisFault } from './errors';
import * as listing from './listing';
import * as pga from './pg-accounts';
import * as secrets from './key-secrets';
import { setKeyRestrictions } from './restrictions';

/** Keys and addresses of one shared store; every change invalidates the cached identities on every instance. */
export class SharedKeys implements KeyStore {
  constructor(private readonly c: SharedContext) {}

  async createKey(input: NewKey, now: number): Promise<ApiKey> {
    const key = await this.c.pg(() => pga.insertKey(this.c.knex, input, now));
    await this.c.changed({ k: 'key', hash: input.hash });
    return key;
  }

  async getKey(id: string): Promise<ApiKey | null> {
    const row = await this.c.pg(() => this.c.knex('api_keys').where({ id }).first());
    return row ? toKey(row) : null;
  }

  listKeyPage(query: KeyQuery): Promise<ApiKey[]> {
    return this.c.pg(() => listing.listKeyPage(this.c.knex, query));
  }

  listKeys(accountId: string): Promise<ApiKey[]> {
    return this.c.pg(() => pga.listKeys(this.c.knex, accountId));
  }

  async revokeKey(id: string, now: number): Promise<ApiKey> {
    const { key, hash } = await this.c.pg(() => pga.revokeKey(this.c.knex, id, now));
    await this.c.changed({ k: 'key', hash, id: key.id });
    return key;
  }

  async setKeyLabel(id: string, label: string | null): Promise<ApiKey> {
    const { key, hash } = await this.c.pg(() => pga.setKeyLabel(this.c.knex, id, label));
    // Instances that cached the key's identity (with its label) drop it, as after a revocation.
    await this.c.changed({ k: 'key', hash, id: key.id });
    return key;
  }

  async setKeyRestrictions(id: string, restrictions: KeyRestrictions | null): Promise<ApiKey> {
    const { key, hash } = await this.c.pg(() => setKeyRestrictions(this.c.knex, id, restrictions));
    // The same invalidation as a revocation: every instance drops the key's cached identity at once (D19).
    await this.c.changed({ k: 'key', hash, id: key.id });
    return key;
  }

  async rotateKey(id: string, secret: NewSecret, previousUntil: number | null, now: number): Promise<ApiKey> {
    const { key } = await this.c.pg(() => secrets.rotateKey(this.c.knex, id, secret, previousUntil, now));
    // Every cached secret of the key (the old one was cached without an end) and the new one (maybe cached unknown).
    await this.c.changed({ k: 'key', hash: secret.hash, id: key.id });
    return key;
  }

  async setKeyExpiry(id: string, expiresAt: number | null): Promise<ApiKey> {
    const { key, hash } = await this.c.pg(() => secrets.setKeyExpiry(this.c.knex, id, expiresAt));
    await this.c.changed({ k: 'key', hash, id: key.id });
    return key;
  }

  async setKeyBurst(id: string, burst: KeyBurst | null): Promise<ApiKey> {
    const { key, hash } = await this.c.pg(() => secrets.setKeyBurst(this.c.knex, id, burst));
    // Cached identities carry the key's limits: every instance drops them at once, like a revocation.
    await this.c.changed({ k: 'key', hash, id: key.id });
    return key;
  }

  async revokeKeyByHash(hash: string, now: number): Promise<ApiKey | null> {
    const found = await this.c.pg(() => secrets.revokeKeyByHash(this.c.knex, hash, now));
    if (found === null) return null;
    await this.c.changed({ k: 'key', hash: found.hash, id: found.key.id });
    return found.key;
  }

  async listSlots(
    scope: string,
    mode: 'fixed' | 'sliding',
    windowMs: number,
    now: number,
  ): Promise<SlotView[]> {
    let all: Record<string, string>;
    try {
      all = await this.c.redis.hgetall(this.c.layout.slots(scope));
    } catch (err) {
      throw redisFault(err);
    }
    const entries = Object.entries(all).map(([member, v]) => {
      const [firstSeen, lastSeen] = v.split(':').map(Number) as [number, number];
      return { member, firstSeen, lastSeen };
    });
    return liveSlots(entries, mode, windowMs, now);
  }

  async addWhitelist(accountId: string, cidr: string, now: number): Promise<WhitelistEntry> {
    const entry = await this.c.pg(() => pga.addWhitelist(this.c.knex, accountId, cidr, now));
    await this.c.changed({ k: 'whitelist' });
    return entry;
  }

  async removeWhitelist(accountId: string, entryId: string): Promise<void> {
    await this.c.pg(() => pga.removeWhitelist(this.c.knex, accountId, entryId));
    await this.c.changed({ k: 'whitelist' });
  }

  listWhitelist(accountId: string): Promise<WhitelistEntry[]> {
    return this.c.pg(() => pga.listWhitelist(this.c.knex, accountId));
  }
}
