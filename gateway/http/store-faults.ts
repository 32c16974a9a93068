/**
 * The HTTP layer's view of store faults: the store contract classifies them (gateway/store/faults.ts); this module
 * only re-exports the classifier so the request path imports no concrete store.
 */
export { isStoreUnavailable } from '../store/faults';
