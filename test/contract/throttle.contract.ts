/**
 * Contract: windowed counters (dashboard sign-in throttling, issue 13). A window starts at the first hit and lasts
 * `windowMs` of the callers' time; every instance on the store sees the same count; concurrent hits are all counted.
 */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { T0, uid } from './helpers';

const MIN15 = 15 * 60_000;

/** hitWindow. */
export function throttleRules(h: StoreHolder): void {
  describe('windowed counters', () => {
    it('counts hits in a window that starts at the first hit, then starts a new window at its end', async () => {
      const name = uid('signin:');
      expect(await h.store.hitWindow(name, MIN15, T0)).toEqual({ count: 1, resetAt: T0 + MIN15 });
      expect(await h.store.hitWindow(name, MIN15, T0 + 1_000)).toEqual({ count: 2, resetAt: T0 + MIN15 });
      expect(await h.store.hitWindow(name, MIN15, T0 + MIN15 - 1)).toEqual({ count: 3, resetAt: T0 + MIN15 });
      // The window ended: a new one starts at this hit.
      expect(await h.store.hitWindow(name, MIN15, T0 + MIN15)).toEqual({ count: 1, resetAt: T0 + 2 * MIN15 });
      // Another name is untouched.
      expect(await h.store.hitWindow(uid('signin:'), MIN15, T0 + 1)).toEqual({
        count: 1,
        resetAt: T0 + 1 + MIN15,
      });
    });

    it('counts every one of concurrent hits exactly once', async () => {
      const name = uid('burst:');
      const counts = await Promise.all(Array.from({ length: 25 }, () => h.store.hitWindow(name, MIN15, T0)));
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
    });

    it('refuses an empty or over-long name and a window outside 1 ms..1 day (invalid_input)', async () => {
      await expectConflict(h.store.hitWindow('', MIN15, T0), 'invalid_input');
      await expectConflict(h.store.hitWindow('x'.repeat(201), MIN15, T0), 'invalid_input');
      await expectConflict(h.store.hitWindow(uid('w:'), 0, T0), 'invalid_input');
      await expectConflict(h.store.hitWindow(uid('w:'), 1.5, T0), 'invalid_input');
    });
  });
}
