import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { ledgerText } from '../../../gateway/cli/render';
import { utcDay } from '../../../gateway/core/clock';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { expectProblem, START, useAdmin } from './fixture';

describe('admin credit, rule set A (EUR, 4 decimals, D16)', () => {
  let id: string;
  const h = useAdmin(RULE_SET_A, { onAccount: (a) => (id = a.id) });

  it('tops up: 201 with the ledger entry and the new balance in EUR; the store holds integer units', async () => {
    const res = await h.call('post', `/admin/accounts/${id}/credit`, { amount: '12.3456' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      accountId: id,
      entry: {
        id: expect.any(String),
        kind: 'topup',
        amount: '12.3456',
        keyId: null,
        ref: null,
        createdAt: '2026-01-31T10:00:00.000Z',
        count: null,
        hourStart: null,
        hourEnd: null,
      },
      balance: '12.3456',
      replayed: false,
    });
    expect((await h.store.getAccount(id))?.balance).toBe(123_456);
    const again = await h.call('post', `/admin/accounts/${id}/credit`, { amount: '0.0001' });
    expect(again.body.balance).toBe('12.3457');
    expect((await h.call('get', `/admin/accounts/${id}`)).body.balance).toBe('12.3457');
  });

  it.each([
    ['a number', 5],
    ['five decimals', '1.00001'],
    ['zero', '0.0000'],
    ['a negative amount', '-1'],
    ['an exponent', '1e2'],
    ['missing', undefined],
  ])('refuses %s with 400 naming amount and changes nothing', async (_name, amount) => {
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/credit`, { amount }),
      400,
      'invalid_parameter',
      'amount',
    );
    expect((await h.store.getAccount(id))?.balance).toBe(0);
    expect(await h.store.ledger(id, 10)).toEqual([]);
  });

  it('refuses an unknown body field by name', async () => {
    const res = await h.call('post', `/admin/accounts/${id}/credit`, { amount: '1', currency: 'EUR' });
    expectProblem(res, 400, 'invalid_parameter', 'currency');
  });

  it('applies a top-up once per Idempotency-Key: a replay answers 200 with the same entry', async () => {
    const first = await h.call(
      'post',
      `/admin/accounts/${id}/credit`,
      { amount: '10' },
      { 'Idempotency-Key': 'order-1' },
    );
    expect(first.status).toBe(201);
    expect(first.body.entry.ref).toBe('order-1');
    const replay = await h.call(
      'post',
      `/admin/accounts/${id}/credit`,
      { amount: '10.0000' },
      { 'Idempotency-Key': 'order-1' },
    );
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...first.body, replayed: true });
    expect((await h.store.getAccount(id))?.balance).toBe(100_000);
    expect(await h.store.ledger(id, 10)).toHaveLength(1);
  });

  it('applies concurrent top-ups with one Idempotency-Key exactly once', async () => {
    const send = () =>
      h.call('post', `/admin/accounts/${id}/credit`, { amount: '5' }, { 'Idempotency-Key': 'race-1' });
    const results = await Promise.all(Array.from({ length: 6 }, send));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.entry.id)).size).toBe(1);
    expect((await h.store.getAccount(id))?.balance).toBe(50_000);
  });

  it('refuses the same Idempotency-Key with a different amount with 409 and changes nothing', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '10' }, { 'Idempotency-Key': 'order-2' });
    const res = await h.call(
      'post',
      `/admin/accounts/${id}/credit`,
      { amount: '11' },
      { 'Idempotency-Key': 'order-2' },
    );
    expectProblem(res, 409, 'idempotency_mismatch', 'Idempotency-Key');
    expect((await h.store.getAccount(id))?.balance).toBe(100_000);
  });

  it('refuses a malformed Idempotency-Key with 400 naming it', async () => {
    const res = await h.call(
      'post',
      `/admin/accounts/${id}/credit`,
      { amount: '1' },
      { 'Idempotency-Key': 'x'.repeat(201) },
    );
    expectProblem(res, 400, 'invalid_parameter', 'Idempotency-Key');
  });

  it('lists the ledger newest first, with a limit', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '1' });
    h.clock.advance(1000);
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '2' });
    const res = await h.call('get', `/admin/accounts/${id}/ledger`);
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: { amount: string }) => e.amount)).toEqual(['2.0000', '1.0000']);
    const one = await h.call('get', `/admin/accounts/${id}/ledger?limit=1`);
    expect(one.body.entries).toHaveLength(1);
    expectProblem(
      await h.call('get', `/admin/accounts/${id}/ledger?limit=0`),
      400,
      'invalid_parameter',
      'limit',
    );
    expectProblem(
      await h.call('get', `/admin/accounts/${id}/ledger?limit=abc`),
      400,
      'invalid_parameter',
      'limit',
    );
  });

  it('lists charges as one entry per key and UTC hour with count, hourStart and hourEnd (D35)', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '1' });
    const charge = async (now: number) => {
      const plan: AdmissionPlan = {
        id: `adm-${now}-${Math.random()}`,
        now,
        day: utcDay(now),
        slots: [],
        free: [{ id: 'key:key_prod', limit: 0 }],
        overflow: { kind: 'bill', accountId: id, price: 12, refuse: 'no_credits' },
        usage: [],
        keyId: 'key_prod',
      };
      const r = await h.store.admit(plan);
      if (!r.admitted) throw new Error(r.code);
    };
    for (const at of [START + 60_000, START + 120_000, START + 3_600_000]) await charge(at);
    const res = await h.call('get', `/admin/accounts/${id}/ledger`);
    const charges = res.body.entries
      .filter((e: { kind: string }) => e.kind === 'charge')
      .sort((a: { hourStart: string }, b: { hourStart: string }) => a.hourStart.localeCompare(b.hourStart));
    expect(charges).toEqual([
      {
        id: expect.any(String),
        kind: 'charge',
        amount: '-0.0024',
        keyId: 'key_prod',
        ref: `charge ${START} key_prod`,
        createdAt: '2026-01-31T10:00:00.000Z',
        count: 2,
        hourStart: '2026-01-31T10:00:00.000Z',
        hourEnd: '2026-01-31T11:00:00.000Z',
      },
      expect.objectContaining({ amount: '-0.0012', count: 1, hourStart: '2026-01-31T11:00:00.000Z' }),
    ]);
    expect(res.body.entries.find((e: { kind: string }) => e.kind === 'topup')).toMatchObject({
      count: null,
      hourStart: null,
      hourEnd: null,
    });
    // `geogate ledger ACCOUNT`: the requests and the UTC hour of each charge row, "-" for the top-up.
    const text = ledgerText(res.body).split('\n');
    expect(text[0]).toMatch(/^ID\s+KIND\s+AMOUNT\s+REQUESTS\s+HOUR \(UTC\)\s+KEY\s+REF\s+AT$/);
    expect(text).toContainEqual(
      expect.stringMatching(
        /\scharge\s+-0\.0024\s+2\s+2026-01-31 10:00–11:00\s+key_prod\s+charge \d+ key_prod\s/,
      ),
    );
    expect(text).toContainEqual(expect.stringMatching(/\stopup\s+1\.0000\s+-\s+-\s+-\s+-\s/));
  });
});

describe('admin credit, rule set B (whole credits)', () => {
  let id: string;
  const h = useAdmin(RULE_SET_B, { onAccount: (a) => (id = a.id) });

  it('tops up whole credits given as a number or a digit string', async () => {
    const res = await h.call('post', `/admin/accounts/${id}/credit`, { amount: 500 });
    expect(res.status).toBe(201);
    expect(res.body.balance).toBe(500);
    expect(res.body.entry.amount).toBe(500);
    expect((await h.call('post', `/admin/accounts/${id}/credit`, { amount: '25' })).body.balance).toBe(525);
    expect((await h.store.getAccount(id))?.balance).toBe(525);
  });

  it.each([
    ['a fraction', 1.5],
    ['a decimal string', '2.0'],
    ['zero', 0],
    ['a negative number', -5],
    ['an exponent', '1e3'],
    ['a sign', '+5'],
  ])('refuses %s with 400 naming amount', async (_name, amount) => {
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/credit`, { amount }),
      400,
      'invalid_parameter',
      'amount',
    );
    expect((await h.store.getAccount(id))?.balance).toBe(0);
  });

  it('replays and refuses mismatches by Idempotency-Key', async () => {
    const h1 = { 'Idempotency-Key': 'pay_123' };
    expect((await h.call('post', `/admin/accounts/${id}/credit`, { amount: 100 }, h1)).status).toBe(201);
    expect((await h.call('post', `/admin/accounts/${id}/credit`, { amount: 100 }, h1)).status).toBe(200);
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/credit`, { amount: 101 }, h1),
      409,
      'idempotency_mismatch',
    );
    expect((await h.store.getAccount(id))?.balance).toBe(100);
  });
});
