/**
 * Contract: single-use marks (dashboard sign-in links and ended sessions). A mark holds until its expiry; after it
 * the id counts as not consumed and may be consumed again (the thing it named has expired too).
 */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { HOUR, T0, uid } from './helpers';

const MIN15 = 15 * 60_000;

/** consumeOnce / isConsumed. */
export function singleUseRules(h: StoreHolder): void {
  describe('single-use marks', () => {
    it('consumes an id the first time only, and isConsumed reflects it', async () => {
      const id = uid('link:');
      expect(await h.store.isConsumed(id, T0)).toBe(false);
      expect(await h.store.consumeOnce(id, T0 + MIN15, T0)).toBe(true);
      expect(await h.store.isConsumed(id, T0)).toBe(true);
      expect(await h.store.consumeOnce(id, T0 + MIN15, T0 + 1)).toBe(false);
      expect(await h.store.consumeOnce(id, T0 + HOUR, T0 + MIN15 - 1)).toBe(false);
      expect(await h.store.isConsumed(id, T0 + MIN15 - 1)).toBe(true);
      // Another id is untouched.
      expect(await h.store.isConsumed(uid('link:'), T0)).toBe(false);
    });

    it('expires at expiresAt: not consumed from then on, and a new consume is true again (once)', async () => {
      const id = uid('session:');
      expect(await h.store.consumeOnce(id, T0 + MIN15, T0)).toBe(true);
      expect(await h.store.isConsumed(id, T0 + MIN15)).toBe(false);
      expect(await h.store.consumeOnce(id, T0 + MIN15 + HOUR, T0 + MIN15)).toBe(true);
      expect(await h.store.consumeOnce(id, T0 + MIN15 + HOUR, T0 + MIN15 + 1)).toBe(false);
      expect(await h.store.isConsumed(id, T0 + MIN15 + HOUR - 1)).toBe(true);
      expect(await h.store.isConsumed(id, T0 + MIN15 + HOUR)).toBe(false);
    });

    it('pruning expired marks (any id, later time) keeps unexpired ones consumed', async () => {
      const live = uid('live:');
      const dead = uid('dead:');
      expect(await h.store.consumeOnce(dead, T0 + 1_000, T0)).toBe(true);
      expect(await h.store.consumeOnce(live, T0 + 48 * HOUR, T0)).toBe(true);
      // Far later calls make every store prune (at most every ten minutes of callers' time).
      for (const t of [T0 + 2 * HOUR, T0 + 3 * HOUR]) {
        expect(await h.store.consumeOnce(uid('other:'), t + MIN15, t)).toBe(true);
      }
      expect(await h.store.isConsumed(live, T0 + 3 * HOUR)).toBe(true);
      expect(await h.store.consumeOnce(live, T0 + 48 * HOUR, T0 + 3 * HOUR)).toBe(false);
      expect(await h.store.isConsumed(dead, T0 + 3 * HOUR)).toBe(false);
      expect(await h.store.consumeOnce(dead, T0 + 4 * HOUR, T0 + 3 * HOUR)).toBe(true);
    });

    it('of 20 concurrent consumes of one id exactly one is true', async () => {
      const id = uid('race:');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => h.store.consumeOnce(id, T0 + MIN15, T0 + i)),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      expect(await h.store.isConsumed(id, T0 + 20)).toBe(true);
    });

    it('an already expired mark cannot be consumed (false, nothing stored)', async () => {
      const id = uid('late:');
      expect(await h.store.consumeOnce(id, T0, T0)).toBe(false);
      expect(await h.store.isConsumed(id, T0 - 1)).toBe(false);
      expect(await h.store.consumeOnce(id, T0 + 1, T0)).toBe(true);
    });

    it('refuses an empty or over-long id and non-integer times with invalid_input', async () => {
      await expectConflict(h.store.consumeOnce('', T0 + 1, T0), 'invalid_input');
      await expectConflict(h.store.consumeOnce('x'.repeat(201), T0 + 1, T0), 'invalid_input');
      await expectConflict(h.store.consumeOnce(uid('t:'), T0 + 0.5, T0), 'invalid_input');
      await expectConflict(h.store.isConsumed('', T0), 'invalid_input');
      expect(await h.store.consumeOnce('y'.repeat(200), T0 + 1, T0)).toBe(true);
    });
  });
}
