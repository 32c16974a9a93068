/** Issue 14 item 2: the admin API's request line and error line carry the request id the answer carries. */
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import type { Store } from '../../../gateway/store/ports';
import { harness, useAdmin, type Harness } from './fixture';

type Line = Record<string, unknown>;

/** The log lines with message `msg` written so far. */
function lines(h: Harness, msg: string): Line[] {
  return h.logs.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l['msg'] === msg);
}

describe('admin request log', () => {
  const h = useAdmin(RULE_SET_A);

  it('each request line has the X-Request-Id of its answer', async () => {
    const a = await h.call('get', '/admin/accounts?email=nobody@example.com');
    const b = await h.call('get', '/admin/accounts/list');
    const ids = [a.headers['x-request-id'], b.headers['x-request-id']];
    expect(ids[0]).toMatch(/\S/);
    expect(ids[1]).not.toBe(ids[0]);
    expect(lines(h, 'admin request').map((l) => l['requestId'])).toEqual(ids);
  });
});

describe('admin error log', () => {
  it('a bug answered 500 is logged with the request id of the answer', async () => {
    // Every store method throws a TypeError: a bug, not a fault.
    const broken = new Proxy({} as Store, {
      get: () => () => {
        throw new TypeError('a bug in the store');
      },
    });
    const h = await harness(RULE_SET_A, { store: broken });
    try {
      const res = await h.call('get', '/admin/accounts/acc_0123456789');
      expect(res.status).toBe(500);
      const errors = lines(h, 'admin error');
      expect(errors).toHaveLength(1);
      expect(errors[0]?.['requestId']).toBe(res.headers['x-request-id']);
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    } finally {
      await h.close();
    }
  });
});
