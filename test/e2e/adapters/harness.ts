/** Kept for imports of the old path: test/e2e/harness.ts is the one e2e harness (canonical). */
export {
  outcome,
  PARIS,
  settlesWithin,
  startDropIns,
  useDropIns,
  useFaultWatch,
  watchProcessFaults,
  type DropInOptions,
  type DropIns,
  type ProcessFault,
} from '../harness';
