/** Opening the shared store with its schema up to date. */
import { SharedStore, type SharedStoreOptions } from './store';

/** Open the shared store and bring the PostgreSQL schema up to date (runs the shared migrations). */
export async function openSharedStore(opts: SharedStoreOptions): Promise<SharedStore> {
  const store = await SharedStore.open(opts);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
