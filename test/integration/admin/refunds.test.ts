/**
 * The operator sees refunds of paid top-ups and what they left owed (D16, D31): GET /admin/accounts/:id/refunds and
 * `geogate refunds ACCOUNT`'s rendering of it.
 */
import { refundsText } from '../../../gateway/cli/render';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { expectProblem, useAdmin } from './fixture';

describe('admin refunds, rule set A', () => {
  let id: string;
  const h = useAdmin(RULE_SET_A, { onAccount: (a) => (id = a.id) });

  it('lists credit notes newest first with the totals refunded and owed', async () => {
    const now = Date.UTC(2026, 0, 31, 10);
    const pay = { method: 'card' as const, currency: 'EUR', paid: { minor: 2000, currency: 'EUR' } };
    await h.store.creditWithReceipt(id, 200_000, 'stripe:cs_1', now, { ...pay, paymentRef: 'pi_admin_1' });
    const empty = await h.call('get', `/admin/accounts/${id}/refunds`);
    expect(empty.body).toEqual({ accountId: id, refunded: '0.0000', owed: '0.0000', creditNotes: [] });

    // 15 EUR of the 20 are spent on requests (a package here), then the whole payment is refunded.
    await h.store.buyPackage(
      id,
      150_000,
      { accountId: id, hash: 'hash_admin_pkg', prefix: 'gk_pkg', kind: 'unlimited', packageUntil: now + 1e9 },
      now,
    );
    const refund = { paymentRef: 'pi_admin_1', claim: 'refund:ch_1', eventRef: 'stripe:evt_1' };
    await h.store.refundTopUp({ ...refund, total: 50_000 }, now + 1);
    await h.store.refundTopUp({ ...refund, total: 200_000, eventRef: 'stripe:evt_2' }, now + 2);

    const res = await h.call('get', `/admin/accounts/${id}/refunds`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accountId: id, refunded: '20.0000', owed: '15.0000' });
    expect(res.body.creditNotes).toEqual([
      expect.objectContaining({ refunded: '15.0000', removed: '0.0000', owed: '15.0000', method: 'card' }),
      expect.objectContaining({ refunded: '5.0000', removed: '5.0000', owed: '0.0000' }),
    ]);
    expect((await h.store.getAccount(id))?.balance).toBe(0);
    const text = refundsText(res.body);
    expect(text).toMatch(/Owed\s+15\.0000/);
    expect(text).toContain(res.body.creditNotes[0].number);
  });

  it('answers 404 for an unknown account and 400 for an unknown query parameter', async () => {
    expectProblem(await h.call('get', '/admin/accounts/acc_nope/refunds'), 404, 'not_found');
    expectProblem(await h.call('get', `/admin/accounts/${id}/refunds?x=1`), 400, 'invalid_parameter', 'x');
  });
});
