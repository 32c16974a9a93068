/** Issue 13 item 10: path ids checked on the raw path before routing (gateway/accounts/ids.ts, gateway/admin/ids.ts). */
import { pathIdProblem } from '../../../gateway/accounts/ids';
import { ADMIN_ID_SEGMENTS } from '../../../gateway/admin/ids';

describe('pathIdProblem', () => {
  test.each([
    ['/accounts/acc_0123456789abcdef0123', null],
    ['/accounts/acc_1/whitelist/wl_2', null],
    ['/accounts', null],
    ['/accounts/', null],
    ['/keys/key_1/revoke', null],
    ['/accounts/acc%5F1', null], // an escaped "_" is still an id
  ])('%s is fine', (path, want) => {
    expect(pathIdProblem(path, ADMIN_ID_SEGMENTS)).toBe(want);
  });
  test.each([
    ['/accounts/%ZZ', 'id'],
    ['/accounts/acc_%00', 'id'],
    ['/accounts/%E0%A4%A', 'id'],
    ['/accounts/%C0%AF', 'id'],
    ['/accounts/a.b', 'id'],
    ['/keys/%2E%2E/revoke', 'id'],
    ['/accounts/acc_1/whitelist/%00', 'entryId'],
  ])('%s is malformed, naming %s', (path, field) => {
    expect(pathIdProblem(path, ADMIN_ID_SEGMENTS)).toEqual({ field, malformed: true });
  });
  test('a well-formed but over-long id cannot exist (404, not 400)', () => {
    expect(pathIdProblem(`/accounts/${'x'.repeat(65)}`, ADMIN_ID_SEGMENTS)).toEqual({
      field: 'id',
      malformed: false,
    });
    expect(pathIdProblem(`/accounts/${'x'.repeat(64)}`, ADMIN_ID_SEGMENTS)).toBeNull();
  });
  test('segment names are own properties only', () => {
    expect(pathIdProblem('/constructor/%ZZ', ADMIN_ID_SEGMENTS)).toBeNull();
  });
});
