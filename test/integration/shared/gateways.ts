/**
 * Two gateway instances on their own ports in front of one real backend, each with its own shared-store instance
 * (own Redis connection, own identification cache) on the same PostgreSQL database and Redis prefix, and one
 * ManualClock (the instances' clocks agree, as NTP-synced machines do).
 */
import pino from 'pino';
import { compileConfig, type CompiledConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { ManualClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { createGateway, type Gateway, type GatewayUrls } from '../../../gateway/server';
import type { SharedStore } from '../../../gateway/store/shared';
import type { ApiKey, KeyKind } from '../../../gateway/store/types';
import type { SharedEnv } from './harness';

export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
export const PEPPER = 'test-pepper-0123456789abcdef';
export const ADMIN_TOKEN = 'admin-token-0123456789';

export interface Instance extends GatewayUrls {
  gateway: Gateway;
  store: SharedStore;
}

export interface Pair {
  config: CompiledConfig;
  clock: ManualClock;
  instances: [Instance, Instance];
  key(accountId: string, kind?: KeyKind): Promise<{ key: string; record: ApiKey }>;
  close(): Promise<void>;
}

/** Start two gateways of rule set `policy` on the shared store of `env`. */
export async function startPair(
  env: SharedEnv,
  policy: 'A' | 'B',
  backendUrl: string,
  extra: Record<string, unknown> = {},
): Promise<Pair> {
  const doc = {
    policy,
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN },
    backend: { url: backendUrl, timeoutMs: 5000 },
    store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
    keyPepper: PEPPER,
    trustProxy: ['127.0.0.1/32'],
    hosts: [{ name: 'localhost', adapter: 'native' }],
    ...extra,
  };
  const config = compileConfig(validateConfig(doc, 'shared-test.yaml', {}), 'shared-test.yaml');
  const clock = new ManualClock(T0);
  const logger = pino({ level: 'silent' });
  const start = async (): Promise<Instance> => {
    const store = await env.open();
    const gateway = createGateway({ config, store, clock, logger, adminToken: ADMIN_TOKEN });
    return { ...(await gateway.listen()), gateway, store };
  };
  const instances: [Instance, Instance] = [await start(), await start()];
  return {
    config,
    clock,
    instances,
    async key(accountId, kind = 'payg') {
      const key = generateKey();
      const record = await instances[0].store.createKey(
        { accountId, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind },
        clock.now(),
      );
      return { key, record };
    },
    async close() {
      for (const i of instances) await i.gateway.close();
    },
  };
}
