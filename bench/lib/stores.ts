/** What the benches ask of a store built by createStore beyond its ports: the shared store's ledger drain. */
import type { Store } from '../../gateway/store';

/** The shared store's ledger drain (flush: write every pending event now; resolves to how many). */
export interface Drain {
  flush(): Promise<number>;
}

/** The drain of a shared store; throws for a store without one. */
export function drainOf(store: Store): Drain {
  const drain = (store as Partial<{ drain: Drain }>).drain;
  if (drain === undefined) throw new Error('bench: this store has no ledger drain (not the shared store)');
  return drain;
}

/** The shared store's Redis key of a daily counter (its layout), e.g. for seeding counters in bulk. */
export type CounterKey = (id: string, day: string) => string;

/** The counter key function of a shared store; throws for a store without a Redis layout. */
export function counterKeyOf(store: Store): CounterKey {
  const layout = (store as Partial<{ layout: { counter: CounterKey } }>).layout;
  if (layout === undefined)
    throw new Error('bench: this store has no Redis key layout (not the shared store)');
  return (id, day) => layout.counter(id, day);
}
