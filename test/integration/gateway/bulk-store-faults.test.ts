/**
 * A bulk call whose store becomes unreachable while its units are admitted (one admission of all of them, D10):
 * closed → nothing is admitted and the call is answered store_unavailable, nothing counted; open → the call is
 * served uncounted, like a single request.
 */
import type { BackendCall } from '../../../adapters/types';
import { StoreUnavailableError } from '../../../gateway/store/shared/errors';
import type { Store } from '../../../gateway/store/ports';
import { call } from '../../helpers/gateway-harness';
import { answer, startInjected, type Injected } from './injected-gateway';

const DAY = '2026-11-22';

const ipRecord = (c: BackendCall) => ({
  ip: c.kind === 'ipv4' ? c.ip : null,
  countryCode: 'US',
  country: 'United States',
  region: null,
  city: null,
  lat: null,
  lon: null,
  timezone: null,
  asn: null,
  org: null,
  attribution: 'test data',
});

/** The store, whose `admit` throws StoreUnavailableError for a plan of several units once `armed`. */
function failingUnitsAdmit(state: { armed: boolean }) {
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, prop) {
        if (prop === 'admit') {
          return async (plan: Parameters<Store['admit']>[0]) => {
            if (state.armed && (plan.units ?? 1) > 1)
              throw new StoreUnavailableError('redis', 'ECONNREFUSED');
            return target.admit(plan);
          };
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
}

describe.each(['closed', 'open'] as const)('onStoreFailure: %s', (mode) => {
  let g: Injected;
  const state = { armed: false };
  beforeAll(async () => {
    g = await startInjected(
      'A',
      {
        onStoreFailure: mode,
        limits: { freePerDay: 0 },
        hosts: [
          { name: 'localhost', adapter: 'native' },
          { name: 'ipstack.localhost', adapter: 'ipstack' },
        ],
      },
      failingUnitsAdmit(state),
    );
    g.backend = (c) => answer(200, ipRecord(c));
  });
  afterAll(() => g.close());

  test('the store fails while the units are admitted: nothing is admitted, nothing is charged', async () => {
    const acc = await g.account(10);
    const { key, id } = await g.key(acc.id);
    state.armed = true;
    const r = await call(g.mainUrl, `/8.8.8.8,1.1.1.1,9.9.9.9?access_key=${key}`, {
      headers: { host: 'ipstack.localhost' },
    });
    state.armed = false;
    if (mode === 'closed') {
      expect(r.json).toMatchObject({ success: false, error: { code: 503 } });
      expect(g.calls).toEqual([]);
    } else {
      expect((r.json as { ip: string }[]).map((x) => x.ip)).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9']);
      expect(g.calls.length).toBe(3);
    }
    expect((await g.store.getAccount(acc.id))?.balance).toBe(10);
    expect((await g.store.usage([`key:${id}`], DAY, DAY))[0]?.billed ?? 0).toBe(0);
    expect((await g.store.ledger(acc.id, 100)).filter((e) => e.kind === 'charge')).toEqual([]);
  });
});
