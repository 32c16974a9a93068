/** Opening the shared store with its schema up to date. */
import { SharedStore, type SharedStoreOptions } from './store';

/** Open the shared store, bring the PostgreSQL schema up to date, and rebuild counters Redis lost (rebuild.ts). */
export async function openSharedStore(opts: SharedStoreOptions): Promise<SharedStore> {
  const store = await SharedStore.open(opts);
  try {
    await store.migrate();
    // Redis may have restarted empty while no instance ran: restore its counters before the first admission.
    await store.rebuild();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
