/** The admin API and an account its owner deleted (issue 15 item 1): shown as deleted, readable, never changed. */
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { expectProblem, newAccount, useAdmin } from './fixture';

describe('admin: a deleted account', () => {
  const h = useAdmin(RULE_SET_A);

  it('is shown with status deleted, deletedAt and its kept ledger; suspending, reinstating, crediting or a new key is 409 account_deleted', async () => {
    const { id } = await newAccount(h, 'gone@example.com');
    expect((await h.call('post', `/admin/accounts/${id}/credit`, { amount: '1.0000' })).status).toBe(201);
    await h.store.deleteAccount(id, `deleted-${id}@deleted.invalid`, h.clock.now());

    const shown = await h.call('get', `/admin/accounts/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id,
      status: 'deleted',
      email: `deleted-${id}@deleted.invalid`,
      name: null,
      balance: '0.0000',
      deletedAt: new Date(h.clock.now()).toISOString(),
    });
    const listed = await h.call('get', '/admin/accounts/list?status=deleted');
    expect(listed.body.items.map((a: { id: string }) => a.id)).toEqual([id]);
    expect((await h.call('get', '/admin/accounts/list?status=active')).body.items).toEqual([]);

    expectProblem(await h.call('post', `/admin/accounts/${id}/reinstate`), 409, 'account_deleted');
    expectProblem(await h.call('post', `/admin/accounts/${id}/suspend`), 409, 'account_deleted');
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/credit`, { amount: '1.0000' }),
      409,
      'account_deleted',
    );
    expectProblem(await h.call('post', `/admin/accounts/${id}/keys`, { label: 'x' }), 409, 'account_deleted');
    expect((await h.store.getAccount(id))?.status).toBe('deleted');
  });
});
