/** Issue 14 item 2: the dashboard's internal-error line carries the request id its answer carries. */
import type { Store } from '../../../gateway/store/ports';
import { Client, harness } from './fixture';

it('a bug answered 500 is logged with the request id of the answer', async () => {
  // Every store method throws a TypeError: a bug, not a fault.
  const broken = new Proxy({} as Store, {
    get: () => () => {
      throw new TypeError('a bug in the store');
    },
  });
  const h = await harness('A', { deps: { store: broken } });
  try {
    const c = new Client(h.app);
    await c.get('/signin');
    const res = await c.form('/signin', { email: 'ada@example.com', password: 'correct horse battery' });
    expect(res.status).toBe(500);
    const errors = h.logs.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'dashboard: internal error');
    expect(errors).toHaveLength(1);
    expect(res.headers['x-request-id']).toMatch(/\S/);
    expect(errors[0]?.['requestId']).toBe(res.headers['x-request-id']);
  } finally {
    await h.close();
  }
});
