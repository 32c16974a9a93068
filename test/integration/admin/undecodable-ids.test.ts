/** Every admin route with an id segment answers 400 (never 500, never an error log) for an undecodable id. */
import { RULE_SET_B } from '../../../gateway/policy/ruleset';
import { routesOf, withEachParam } from '../../helpers/express-routes';
import { useAdmin } from './fixture';

const h = useAdmin(RULE_SET_B);

test('every admin route with an id segment answers 400 invalid_parameter for an undecodable id', async () => {
  const cases = ['%ZZ', '%E0%A4%A'].flatMap((bad) => withEachParam(routesOf(h.app), bad));
  expect(cases.map((c) => c.path)).toEqual(
    expect.arrayContaining([
      '/admin/accounts/%ZZ/ledger',
      '/admin/keys/%ZZ/revoke',
      '/admin/accounts/x1/whitelist/%ZZ',
    ]),
  );
  for (const { method, path } of cases) {
    const r = await h.call(method as 'get' | 'post' | 'put' | 'patch' | 'delete', path, {});
    expect({ method, path, status: r.status, code: (r.body as { code?: string }).code }).toEqual({
      method,
      path,
      status: 400,
      code: 'invalid_parameter',
    });
  }
  expect(h.logs.text).not.toContain('admin error');
});
