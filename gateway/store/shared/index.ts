/** The shared store (PostgreSQL + Redis, issue 4): the store, its fault type, and its operations. */
export { SharedStore, type SharedStoreOptions } from './store';
export { openSharedStore } from './open';
export { StoreUnavailableError } from './errors';
export { reconcile, formatDrift, type Drift, type ReconcileReport } from './reconcile';
export { migrateCommand, reconcileCommand, type SharedStoreSection } from './commands';
