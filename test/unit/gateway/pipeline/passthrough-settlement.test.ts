/** D11's passthrough column (D26): a passthrough answer whose status line is below 500 is kept, a 5xx released. */
import { D11, passthroughKind } from '../../../../gateway/http/settlement';

describe('D11 passthrough column', () => {
  test.each([
    [200, 'record', true],
    [204, 'record', true],
    [302, 'record', true],
    [400, 'rejected', true],
    [401, 'record', true],
    [404, 'no_result', true],
    [429, 'record', true],
    [500, 'failed', false],
    [503, 'failed', false],
  ])('status %d is %s, kept: %s', (status, kind, keep) => {
    expect(passthroughKind(status)).toBe(kind);
    expect(D11[passthroughKind(status)].keepPassthrough).toBe(keep);
  });

  test('no status line (timeout, unavailable, client gone) is released', () => {
    for (const kind of ['timeout', 'unavailable', 'client_gone'] as const) {
      expect(D11[kind].keepPassthrough).toBe(false);
    }
  });

  test('differs from the translated column only for a rejected (400) request', () => {
    const differ = Object.values(D11).filter((s) => s.keep !== s.keepPassthrough);
    expect(differ.map((s) => s.kind)).toEqual(['rejected']);
  });
});
