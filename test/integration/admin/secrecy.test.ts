import { hashKey } from '../../../gateway/core/keys';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { admitRequest, harness, newAccount, PEPPER, TOKEN } from './fixture';

describe.each([RULE_SET_A, RULE_SET_B])('keys stay secret, rule set $name (D14)', (rules) => {
  it('shows a key only in its creation response: never in later responses, problems or logs', async () => {
    const h = await harness(rules);
    try {
      const { id } = await newAccount(h);
      await h.call('post', `/admin/accounts/${id}/credit`, { amount: rules.name === 'A' ? '100' : 100 });
      const created = await h.call('post', `/admin/accounts/${id}/keys`, { label: 'secret' });
      const keys: string[] = [created.body.key];
      const creationBodies = [created.text];
      if (rules.name === 'A') {
        const pkg = await h.call('post', `/admin/accounts/${id}/packages`);
        keys.push(pkg.body.key);
        creationBodies.push(pkg.text);
      } else {
        await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '203.0.113.50' });
        await h.call('put', `/admin/accounts/${id}/plan`, {
          plan: 'unlimited',
          until: '2027-01-01T00:00:00Z',
        });
      }
      await admitRequest(h, id, created.body.id, '203.0.113.1');
      // Every read and refusal afterwards, including requests that put the key where it does not belong.
      await h.call('get', `/admin/accounts/${id}`);
      await h.call('get', `/admin/keys/${created.body.id}`);
      await h.call('get', `/admin/accounts/${id}/usage`);
      await h.call('get', `/admin/accounts/${id}/ledger`);
      await h.call(
        'get',
        `/admin/accounts?email=${encodeURIComponent((await h.store.getAccount(id))?.email ?? '')}`,
      );
      await h.call('post', `/admin/keys/${created.body.id}/revoke`);
      await h.call('post', `/admin/keys/${created.body.id}/revoke`);
      await h.call('get', `/admin/keys/${keys[0]}`);
      await h.call('post', `/admin/accounts/${id}/keys`, { label: keys[0] + '\u0000' });
      await h.call('post', `/admin/accounts/${id}/keys`, { [keys[0] ?? '']: 1 });
      await h.call('get', `/admin/accounts/${id}/usage?key=${keys[0]}`);
      await h.call('post', `/admin/accounts/${id}/credit`, { amount: keys[0] });

      const later = h.bodies.filter((b) => !creationBodies.includes(b));
      expect(later.length).toBeGreaterThan(10);
      for (const key of keys) {
        expect(key).toMatch(/^gk_/);
        for (const body of later) expect(body).not.toContain(key);
        expect(h.logs.text).not.toContain(key);
        expect(h.logs.text).not.toContain(key.slice(8));
        expect(h.logs.text).not.toContain(hashKey(key, PEPPER));
        for (const body of h.bodies) expect(body).not.toContain(hashKey(key, PEPPER));
      }
      expect(h.logs.text).not.toContain(TOKEN);
      expect(h.logs.text).not.toContain(PEPPER);
      expect(h.logs.text.length).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });
});
