/** Admin API: a key's restrictions (issue 15 item 4, D29): read, replace (canonical), clear; field-named errors. */
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, useAdmin } from './fixture';

describe.each([RULE_SET_A, RULE_SET_B])('admin key restrictions, rule set $name', (rules) => {
  let accountId: string;
  const h = useAdmin(rules, { onAccount: (a) => (accountId = a.id) });
  const newKey = async () =>
    (await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'web' })).body.id as string;

  it('reads none, replaces with canonical lists, takes effect in the identity, clears with empty lists', async () => {
    const id = await newKey();
    const none = await h.call('get', `/admin/keys/${id}/restrictions`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ keyId: id, referrers: [], cidrs: [], limits: { referrers: 20, cidrs: 50 } });
    const put = await h.call('put', `/admin/keys/${id}/restrictions`, {
      referrers: ['HTTPS://App.Example.com/', '*.example.org:*'],
      cidrs: ['203.0.113.9/24'],
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      referrers: ['https://app.example.com', '*.example.org:*'],
      cidrs: ['203.0.113.0/24'],
    });
    expect((await h.call('get', `/admin/keys/${id}/restrictions`)).body).toEqual(put.body);
    expect((await h.store.getKey(id))?.restrictions).toEqual({
      referrers: ['https://app.example.com', '*.example.org:*'],
      cidrs: ['203.0.113.0/24'],
    });
    const cleared = await h.call('put', `/admin/keys/${id}/restrictions`, { referrers: [], cidrs: [] });
    expect(cleared.body).toMatchObject({ referrers: [], cidrs: [] });
    expect((await h.store.getKey(id))?.restrictions).toBeUndefined();
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const id = await newKey();
    await h.call('put', `/admin/keys/${id}/restrictions`, { referrers: ['example.com'] });
    const cases: [unknown, string][] = [
      [{ referrers: ['ok.example', 'ftp://x.example'] }, 'referrers[1]'],
      [{ referrers: 'example.com' }, 'referrers'],
      [{ cidrs: ['192.0.2.0/33'] }, 'cidrs[0]'],
      [{ cidrs: Array(51).fill('192.0.2.1') }, 'cidrs'],
      [{ referrers: Array(21).fill('a.example') }, 'referrers'],
      [{ origins: [] }, 'origins'],
    ];
    for (const [body, field] of cases) {
      expectProblem(
        await h.call('put', `/admin/keys/${id}/restrictions`, body),
        400,
        'invalid_parameter',
        field,
      );
    }
    expect((await h.store.getKey(id))?.restrictions).toEqual({ referrers: ['example.com'], cidrs: [] });
    expectProblem(
      await h.call('put', '/admin/keys/key_nope/restrictions', { referrers: [] }),
      404,
      'not_found',
    );
  });
});
