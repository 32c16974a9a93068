/**
 * Bulk calls through a running gateway with an injected backend (issue 16 item 1, docs/decisions.md "Bulk calls"):
 * N addresses are N requests billed; a refused call changes nothing (D10); a failed lookup is released (D11).
 */
import type { BackendCall } from '../../../adapters/types';
import type { IpRecord } from '../../../backend/records';
import { call } from '../../helpers/gateway-harness';
import { answer, startInjected, type Injected } from './injected-gateway';
import { chargedRequests } from '../../helpers/ledger';

const DAY = '2026-11-22';

function ipRecord(c: BackendCall): IpRecord {
  const ip = c.kind === 'ipv4' && c.ip !== null ? c.ip : '0.0.0.0';
  return {
    ip,
    countryCode: 'US',
    country: 'United States',
    region: 'California',
    city: 'Mountain View',
    lat: 37.4056,
    lon: -122.0775,
    timezone: 'America/Los_Angeles',
    asn: 15169,
    org: 'Google LLC',
    attribution: 'test data',
  };
}

describe('bulk calls: one request per address (rule set A, no free allowance)', () => {
  let g: Injected;
  beforeAll(async () => {
    g = await startInjected('A', {
      limits: { freePerDay: 0 },
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'ipstack.localhost', adapter: 'ipstack' },
        { name: 'ipinfo.localhost', adapter: 'ipinfo' },
      ],
    });
  });
  afterAll(() => g.close());
  beforeEach(() => {
    g.backend = (c) => answer(200, ipRecord(c));
    g.calls.length = 0;
  });

  /** A funded account with one key, and what it has paid so far. */
  async function payer(balance: number) {
    const acc = await g.account(balance);
    const { key, id } = await g.key(acc.id);
    const money = async () => ({
      balance: (await g.store.getAccount(acc.id))?.balance,
      billed: (await g.store.usage([`key:${id}`], DAY, DAY))[0]?.billed ?? 0,
      charges: chargedRequests(await g.store.ledger(acc.id, 1000)), // D35: hourly rows' counts
    });
    return { key, money };
  }

  const ipstack = (path: string) => call(g.mainUrl, path, { headers: { host: 'ipstack.localhost' } });
  const batch = (key: string, paths: unknown) =>
    call(g.mainUrl, '/batch', {
      method: 'POST',
      headers: {
        host: 'ipinfo.localhost',
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(paths),
    });

  test('ipstack: 3 addresses → an array of 3 answers, 3 units billed', async () => {
    const p = await payer(10);
    const r = await ipstack(`/8.8.8.8,1.1.1.1%2C9.9.9.9?access_key=${p.key}`);
    expect(r.status).toBe(200);
    expect((r.json as { ip: string }[]).map((x) => x.ip)).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9']);
    expect(g.calls).toEqual(['8.8.8.8', '1.1.1.1', '9.9.9.9'].map((ip) => ({ kind: 'ipv4', ip })));
    expect(await p.money()).toEqual({ balance: 7, billed: 3, charges: 3 });
  });

  test('ipstack: a call the balance cannot pay in full is refused and changes nothing', async () => {
    const p = await payer(2);
    const r = await ipstack(`/8.8.8.8,1.1.1.1,9.9.9.9?access_key=${p.key}`);
    expect(r.status).toBe(200); // ipstack's errors are HTTP 200
    expect(r.json).toMatchObject({ success: false, error: { code: 104, type: 'usage_limit_reached' } });
    expect(g.calls).toEqual([]);
    expect(await p.money()).toEqual({ balance: 2, billed: 0, charges: 0 });
    // The two units it could pay are still there: a 2-address call is served.
    const ok = await ipstack(`/8.8.8.8,1.1.1.1?access_key=${p.key}`);
    expect((ok.json as unknown[]).length).toBe(2);
    expect(await p.money()).toEqual({ balance: 0, billed: 2, charges: 2 });
  });

  test('ipstack: a bad address refuses the whole call before anything is counted', async () => {
    const p = await payer(10);
    const r = await ipstack(`/8.8.8.8,nope?access_key=${p.key}`);
    expect(r.json).toMatchObject({ success: false, error: { code: 106 } });
    expect(g.calls).toEqual([]);
    expect(await p.money()).toEqual({ balance: 10, billed: 0, charges: 0 });
  });

  test('a failed lookup is released (D11): its entry is an error, the others are billed', async () => {
    const p = await payer(10);
    g.backend = (c) =>
      c.kind === 'ipv4' && c.ip === '1.1.1.1' ? { kind: 'timeout' } : answer(200, ipRecord(c));
    const r = await ipstack(`/8.8.8.8,1.1.1.1,9.9.9.9?access_key=${p.key}`);
    const items = r.json as Record<string, unknown>[];
    expect(items[0]).toMatchObject({ ip: '8.8.8.8' });
    expect(items[1]).toMatchObject({ success: false, error: { code: 504 } });
    expect(items[2]).toMatchObject({ ip: '9.9.9.9' });
    expect(await p.money()).toEqual({ balance: 8, billed: 2, charges: 2 });
  });

  test('every lookup failed: answered as a failed single lookup, nothing billed', async () => {
    const p = await payer(10);
    g.backend = () => ({ kind: 'unavailable', reason: 'ECONNREFUSED' });
    const r = await ipstack(`/8.8.8.8,1.1.1.1?access_key=${p.key}`);
    expect(r.json).toMatchObject({ success: false, error: { code: 502 } });
    expect(g.calls.length).toBe(2);
    expect(await p.money()).toEqual({ balance: 10, billed: 0, charges: 0 });
  });

  test('a client that leaves mid-call: the answered lookup is billed, the rest released and never forwarded', async () => {
    const p = await payer(10);
    g.backend = (c, res) => {
      if (c.kind === 'ipv4' && c.ip === '1.1.1.1') {
        res.destroy(); // the client's connection is gone
        return { kind: 'client_gone' };
      }
      return answer(200, ipRecord(c));
    };
    const logged = g.nextLogLine();
    await expect(ipstack(`/8.8.8.8,1.1.1.1,9.9.9.9?access_key=${p.key}`)).rejects.toThrow();
    await logged;
    expect(g.calls.map((c) => (c.kind === 'ipv4' ? c.ip : null))).toEqual(['8.8.8.8', '1.1.1.1']);
    expect(await p.money()).toEqual({ balance: 9, billed: 1, charges: 1 });
  });

  test('ipinfo /batch: an object keyed by path, one unit per distinct path', async () => {
    const p = await payer(10);
    const r = await batch(p.key, ['8.8.8.8/json', '1.1.1.1/country', '8.8.8.8/json']);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      '8.8.8.8/json': expect.objectContaining({ ip: '8.8.8.8', country: 'US' }),
      '1.1.1.1/country': 'US',
    });
    expect(await p.money()).toEqual({ balance: 8, billed: 2, charges: 2 });
  });

  test('ipinfo /batch?token=K (the key in the query) is served and billed the same', async () => {
    const p = await payer(5);
    const r = await call(g.mainUrl, `/batch?token=${p.key}`, {
      method: 'POST',
      headers: { host: 'ipinfo.localhost', 'content-type': 'application/json' },
      body: '["8.8.8.8/city","1.1.1.1"]',
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      '8.8.8.8/city': 'Mountain View',
      '1.1.1.1': expect.objectContaining({ ip: '1.1.1.1' }),
    });
    expect(await p.money()).toEqual({ balance: 3, billed: 2, charges: 2 });
  });

  test('ipinfo /batch refused for credit → 429, nothing counted; anonymous past its (zero) allowance → 429', async () => {
    const p = await payer(1);
    const r = await batch(p.key, ['8.8.8.8', '1.1.1.1']);
    expect(r.status).toBe(429);
    expect(g.calls).toEqual([]);
    expect(await p.money()).toEqual({ balance: 1, billed: 0, charges: 0 });
    const anon = await call(g.mainUrl, '/batch', {
      method: 'POST',
      headers: { host: 'ipinfo.localhost', 'content-type': 'application/json' },
      body: '["8.8.8.8"]',
    });
    expect(anon.status).toBe(429);
    expect(anon.json).toMatchObject({ error: { title: 'Rate limit exceeded' } });
    expect(g.calls).toEqual([]);
  });
});

describe('a refused bulk call shows the allowance as it is after the refusal', () => {
  let g: Injected;
  beforeAll(async () => {
    g = await startInjected('A', {
      limits: { freePerDay: 2 },
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'ipstack.localhost', adapter: 'ipstack' },
      ],
    });
    g.backend = (c) => answer(200, ipRecord(c));
  });
  afterAll(() => g.close());

  test('3 addresses, 2 free, no credit → refused, RateLimit still shows 2 remaining, and 2 are then served', async () => {
    const acc = await g.account(0);
    const { key } = await g.key(acc.id);
    const get = (ips: string) =>
      call(g.mainUrl, `/${ips}?access_key=${key}`, { headers: { host: 'ipstack.localhost' } });
    const refused = await get('8.8.8.8,1.1.1.1,9.9.9.9');
    expect(refused.json).toMatchObject({ success: false, error: { code: 104 } });
    expect(refused.headers['ratelimit']).toMatch(/^"daily";r=2;t=\d+$/);
    expect(g.calls).toEqual([]);
    const served = await get('8.8.8.8,1.1.1.1');
    expect((served.json as unknown[]).length).toBe(2);
    expect(served.headers['ratelimit']).toMatch(/^"daily";r=0;t=\d+$/);
  });
});
