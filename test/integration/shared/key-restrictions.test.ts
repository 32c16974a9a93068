/**
 * Key restrictions (issue 15 item 4, D29) on two gateway instances over one shared store: restrictions set through
 * one instance's admin API are enforced by the other within one second (the revocation's invalidation path, D19),
 * and lifted as fast; a refused request counts nowhere on either instance.
 */
import { call, type Answer } from '../../helpers/gateway-harness';
import { useBackendProcess } from '../../helpers/gateway-processes';
import { ADMIN_TOKEN, describeShared, startPair, T0, useSharedEnv, type Pair, msUntil } from './fixture';

jest.setTimeout(120_000);

const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';
const on = (p: Pair, i: 0 | 1, key: string, origin: string): Promise<Answer> =>
  call(p.instances[i].mainUrl, REVERSE, {
    headers: { 'x-forwarded-for': '198.51.100.77', 'x-api-key': key, origin },
  });

describeShared('key restrictions on two instances of one shared store', () => {
  const backend = useBackendProcess();
  const { env } = useSharedEnv('restrict');
  let p: Pair | null = null;
  afterEach(async () => {
    await p?.close();
    p = null;
  });

  it.each(['A', 'B'] as const)(
    'rule set %s: set on instance 0, enforced by instance 1 within 1 s; refused requests count nowhere',
    async (policy) => {
      p = await startPair(env, policy, backend.url, {});
      const pair = p;
      const acc = await pair.instances[0].store.createAccount(
        { email: `r${policy}@example.org`, name: 'R' },
        T0,
      );
      const { key, record } = await pair.key(acc.id);
      expect((await on(pair, 1, key, 'https://evil.example.net')).status).toBe(200); // cached on instance 1
      const put = await call(pair.instances[0].adminUrl, `/admin/keys/${record.id}/restrictions`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ referrers: ['https://*.example.com'] }),
      });
      expect(put.status).toBe(200);
      const ms = await msUntil(
        async () => (await on(pair, 1, key, 'https://evil.example.net')).status === 403,
      );
      expect(ms).toBeLessThan(1_000);
      const day = new Date(T0).toISOString().slice(0, 10);
      const before = await pair.instances[0].store.usage([`key:${record.id}`], day, day);
      for (const i of [0, 1] as const) {
        const r = await on(pair, i, key, 'https://evil.example.net');
        expect(r.json).toMatchObject({ code: 'key_restricted', status: 403 });
      }
      expect(await pair.instances[1].store.usage([`key:${record.id}`], day, day)).toEqual(before);
      expect((await on(pair, 1, key, 'https://maps.example.com')).status).toBe(200);
      await pair.instances[0].store.setKeyRestrictions(record.id, null);
      const back = await msUntil(
        async () => (await on(pair, 1, key, 'https://evil.example.net')).status === 200,
      );
      expect(back).toBeLessThan(1_000);
    },
  );
});
