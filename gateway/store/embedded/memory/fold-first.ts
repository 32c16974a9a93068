/**
 * The other ports of a store whose admission is decided in memory: each call folds what admission kept first, so a
 * read sees every kept admission and a write (a top-up, an adjustment, a revocation) lands on folded rows; after a
 * write the owner reads its state again (store.ts passes `changed`). The admission port's account reads add the
 * admissions in flight (overlay.ts).
 */
import type { Account, SlotView, UsageRow } from '../../types';
import { overlayAccount, overlaySlots, overlayUsage, type Held } from './overlay';

/** Something that folds what admission kept into the store. */
export interface Folds extends Held {
  foldNow(): Promise<void>;
}

type Method = (...args: unknown[]) => unknown;

/** The result of a read of the admission port with the owner's admissions in flight added. */
function overlaid(owner: Folds, name: string | symbol, args: unknown[], result: unknown): unknown {
  if (name === 'getAccount') return overlayAccount(owner, result as Account | null);
  if (name === 'usage')
    return overlayUsage(
      owner,
      result as UsageRow[],
      args[0] as string[],
      args[1] as string,
      args[2] as string,
    );
  if (name === 'listSlots') {
    const [scope, mode, windowMs, now] = args as [string, 'fixed' | 'sliding', number, number];
    return overlaySlots(owner, scope, mode, windowMs, now, result as SlotView[]);
  }
  return result;
}

/** `part` with every method preceded by a fold (management ports only, never the admission part: hot path). */
export function foldFirst<T extends object>(part: T, owner: Folds): T {
  return new Proxy(part, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      const fn = value as Method;
      return async (...args: unknown[]) => {
        await owner.foldNow();
        return overlaid(owner, name, args, await fn.apply(target, args));
      };
    },
  });
}
