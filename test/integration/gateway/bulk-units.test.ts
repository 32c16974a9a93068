/**
 * A bulk call is one admission plan of one unit per lookup (docs/decisions.md, "Units in the plan"): the store is
 * asked once, all units or none; each lookup's unit is settled on its own (D11) while the slot the caller's address
 * took stays with the lookups answered.
 */
import type { BackendCall } from '../../../adapters/types';
import type { AdmissionPlan, Store } from '../../../gateway/store';
import { call } from '../../helpers/gateway-harness';
import { answer, startInjected, type Injected } from './injected-gateway';

const WINDOW = 24 * 3_600_000;

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

/** The store, recording every plan it is asked to admit. */
function recording(plans: AdmissionPlan[]) {
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, prop) {
        if (prop === 'admit') {
          return (plan: AdmissionPlan) => {
            plans.push(plan);
            return target.admit(plan);
          };
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
}

describe('bulk calls as one plan of units', () => {
  let g: Injected;
  const plans: AdmissionPlan[] = [];
  beforeAll(async () => {
    g = await startInjected(
      'A',
      {
        limits: { freePerDay: 0 },
        hosts: [
          { name: 'localhost', adapter: 'native' },
          { name: 'ipstack.localhost', adapter: 'ipstack' },
        ],
      },
      recording(plans),
    );
  });
  afterAll(() => g.close());
  beforeEach(() => {
    plans.length = 0;
  });

  const ipstack = (path: string) => call(g.mainUrl, path, { headers: { host: 'ipstack.localhost' } });

  test('a call of 3 lookups asks the store once, for 3 units', async () => {
    const acc = await g.account(10);
    const { key } = await g.key(acc.id);
    g.backend = (c) => answer(200, ipRecord(c));
    const r = await ipstack(`/8.8.8.8,1.1.1.1,9.9.9.9?access_key=${key}`);
    expect((r.json as unknown[]).length).toBe(3);
    expect(plans.map((p) => p.units)).toEqual([3]);
    expect((await g.store.getAccount(acc.id))?.balance).toBe(7);
  });

  test('a first lookup that fails is released alone: the address keeps its slot for the answered ones', async () => {
    const acc = await g.account(10);
    const { key, id } = await g.key(acc.id);
    g.backend = (c) =>
      c.kind === 'ipv4' && c.ip === '8.8.8.8' ? { kind: 'timeout' } : answer(200, ipRecord(c));
    const r = await ipstack(`/8.8.8.8,1.1.1.1?access_key=${key}`);
    expect((r.json as Record<string, unknown>[])[1]).toMatchObject({ ip: '1.1.1.1' });
    expect((await g.store.getAccount(acc.id))?.balance).toBe(9);
    const slots = await g.store.listSlots(`key:${id}`, 'fixed', WINDOW, g.clock.now());
    expect(slots.map((s) => s.member)).toEqual(['127.0.0.1/32']);
  });

  test('every lookup failed: nothing billed and the slot is given back', async () => {
    const acc = await g.account(10);
    const { key, id } = await g.key(acc.id);
    g.backend = () => ({ kind: 'unavailable', reason: 'ECONNREFUSED' });
    await ipstack(`/8.8.8.8,1.1.1.1?access_key=${key}`);
    expect((await g.store.getAccount(acc.id))?.balance).toBe(10);
    expect(await g.store.listSlots(`key:${id}`, 'fixed', WINDOW, g.clock.now())).toEqual([]);
  });
});
