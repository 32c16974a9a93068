/**
 * The request pipeline through a running gateway with an injected forwarder (no backend process): D11 decides from
 * the backend's outcome whether the admission is kept (charged, counted) or released, and issue 13 item 11: a 200
 * the host's adapter cannot render is released and answered 502 backend_unavailable in the host's shape.
 */
import type { BackendOutcome } from '../../../gateway/http/backend';
import { nativeAdapter } from '../../../adapters/native';
import { call } from '../../helpers/gateway-harness';
import { answer, reverseRecord, startInjected, type Injected } from './injected-gateway';
import { chargedRequests } from '../../helpers/ledger';

const REV = '/v1/reverse?lat=48.8584&lon=2.2945';
const DAY = '2026-11-22';

describe.each(['A', 'B'] as const)(
  'rule set %s: keep or release after the backend answers (D11)',
  (policy) => {
    let g: Injected;
    let key: string;
    let keyId: string;
    let accountId: string;
    beforeAll(async () => {
      // No free allowance: every admitted keyed request is billed one unit, so "kept" shows in the balance.
      g = await startInjected(policy, { limits: { freePerDay: 0 } });
      const acc = await g.account(1000);
      accountId = acc.id;
      ({ key, id: keyId } = await g.key(acc.id));
    });
    afterAll(() => g.close());

    /** Balance, billed usage and charged requests of the account. */
    const money = async () => ({
      balance: (await g.store.getAccount(accountId))?.balance,
      billed: (await g.store.usage([`key:${keyId}`], DAY, DAY))[0]?.billed ?? 0,
      charges: chargedRequests(await g.store.ledger(accountId, 1000)), // D35: hourly rows' counts
    });

    const problem = (status: number, code: string, extra: object = {}) =>
      answer(status, {
        type: 'about:blank',
        title: 't',
        status,
        detail: `backend says ${code}`,
        code,
        ...extra,
      });

    interface Row {
      name: string;
      outcome: BackendOutcome;
      status: number;
      code: string | null;
      kept: boolean;
    }
    const row = (
      name: string,
      outcome: BackendOutcome,
      status: number,
      code: string | null,
      kept: boolean,
    ): Row => ({
      name,
      outcome,
      status,
      code,
      kept,
    });
    const rows: Row[] = [
      row(
        '200 with a record',
        answer(200, reverseRecord({ kind: 'reverse', lat: 48.8584, lon: 2.2945 })),
        200,
        null,
        true,
      ),
      row('404 no result found', problem(404, 'not_found'), 404, 'not_found', true),
      row(
        '400 rejected as malformed',
        problem(400, 'invalid_parameter', { parameter: 'lat' }),
        400,
        'invalid_parameter',
        false,
      ),
      row('500 backend error', problem(500, 'internal'), 502, 'backend_unavailable', false),
      row('503 backend error', answer(503, 'busy'), 502, 'backend_unavailable', false),
      row('timeout', { kind: 'timeout' }, 504, 'backend_timeout', false),
      row(
        'connection refused',
        { kind: 'unavailable', reason: 'ECONNREFUSED' },
        502,
        'backend_unavailable',
        false,
      ),
      row('200 that is not JSON', answer(200, '<html>oops</html>'), 502, 'backend_unavailable', false),
      row('200 with a JSON array', answer(200, [1, 2]), 502, 'backend_unavailable', false),
      row('200 with JSON null', answer(200, 'null'), 502, 'backend_unavailable', false),
      row(
        '200 without the record shape',
        answer(200, { displayName: 5, query: {} }),
        502,
        'backend_unavailable',
        false,
      ),
    ];

    test.each(rows)('$name → $status $code, kept: $kept', async ({ outcome, status, code, kept }) => {
      g.backend = () => outcome;
      const before = await money();
      const r = await call(g.mainUrl, REV, { headers: { 'x-api-key': key } });
      expect(r.status).toBe(status);
      if (code === null) expect(r.json.display_name).toBe('Paris, Île-de-France, France');
      else expect(r.json).toMatchObject({ code, status });
      if (code === 'invalid_parameter') expect(r.json.parameter).toBe('lat');
      expect(r.headers['content-type']).toMatch(
        code === null ? /^application\/json/ : /^application\/problem\+json/,
      );
      const after = await money();
      const d = kept ? 1 : 0;
      expect(after).toEqual({
        balance: (before.balance ?? 0) - d,
        billed: before.billed + d,
        charges: before.charges + d,
      });
    });

    test('a client that leaves before the answer is released, and nothing is written to it', async () => {
      g.backend = (_c, res) => {
        res.destroy(); // the client's connection is gone
        return { kind: 'client_gone' };
      };
      const before = await money();
      const logged = g.nextLogLine();
      await expect(call(g.mainUrl, REV, { headers: { 'x-api-key': key } })).rejects.toThrow();
      expect(await logged).toMatchObject({ path: '/v1/reverse', identity: 'key', keyId });
      expect(await money()).toEqual(before);
    });

    test('the per-request log line keeps its fields and order, and never the key or the query', async () => {
      g.backend = (c) => answer(200, reverseRecord(c));
      const logged = g.nextLogLine();
      expect((await call(g.mainUrl, REV, { headers: { 'x-api-key': key } })).status).toBe(200);
      const line = await logged;
      const { level: _l, time: _t, pid: _p, hostname: _h, msg, ...fields } = line;
      expect(msg).toBe('request');
      // issue 14 item 2 adds the request id to the line (last, after the fields it had).
      expect(Object.keys(fields)).toEqual([
        'method',
        'path',
        'host',
        'status',
        'identity',
        'keyId',
        'ms',
        'requestId',
      ]);
      expect(fields).toMatchObject({ method: 'GET', path: '/v1/reverse', host: 'localhost', status: 200 });
      expect(JSON.stringify(line)).not.toContain(key);
      expect(JSON.stringify(line)).not.toContain('lat=');
    });
  },
);

describe('issue 13 item 11: a 200 the adapter cannot render', () => {
  test('an adapter that throws while rendering: released, 502 backend_unavailable, never a counted 500', async () => {
    const g = await startInjected('A', { limits: { freePerDay: 0 } });
    try {
      const host = g.config.hosts[0];
      if (!host) throw new Error('no host');
      host.adapter = {
        ...nativeAdapter,
        renderReverse: () => {
          throw new TypeError('cannot render this record');
        },
      };
      const acc = await g.account(5);
      const { key, id } = await g.key(acc.id);
      const r = await call(g.mainUrl, REV, { headers: { 'x-api-key': key } });
      expect(r.status).toBe(502);
      expect(r.json).toMatchObject({ code: 'backend_unavailable', status: 502 });
      expect(r.text).not.toContain('cannot render');
      expect((await g.store.getAccount(acc.id))?.balance).toBe(5);
      expect(await g.store.usage([`key:${id}`], DAY, DAY)).toEqual([]);
      expect(g.logs.some((l) => l.includes('could not be rendered'))).toBe(true);
    } finally {
      await g.close();
    }
  });

  test.each(['A', 'B'] as const)(
    "rule set %s, Google host: answered in Google's shape (UNKNOWN_ERROR), nothing counted or charged",
    async (policy) => {
      const g = await startInjected(policy, {
        limits: { freePerDay: 0 },
        hosts: [
          { name: 'localhost', adapter: 'native' },
          { name: 'maps.localhost', adapter: 'google' },
        ],
      });
      try {
        const acc = await g.account(5);
        const { key, id } = await g.key(acc.id);
        const path = `/maps/api/geocode/json?latlng=48.8584,2.2945&key=${key}`;
        const google = () => call(g.mainUrl, path, { headers: { host: 'maps.localhost' } });
        g.backend = () => answer(200, { not: 'a record' });
        const bad = await google();
        expect(bad.status).toBe(200); // Google answers its errors with HTTP 200 (providers.md 1.1)
        expect(bad.json).toMatchObject({ status: 'UNKNOWN_ERROR', results: [] });
        expect((await g.store.getAccount(acc.id))?.balance).toBe(5);
        expect(await g.store.usage([`key:${id}`], DAY, DAY)).toEqual([]);
        // The same host with a renderable record is served and charged: the check is not refusing everything.
        g.backend = (c) => answer(200, reverseRecord(c));
        const good = await google();
        expect(good.json.status).toBe('OK');
        expect((await g.store.getAccount(acc.id))?.balance).toBe(4);
      } finally {
        await g.close();
      }
    },
  );
});
