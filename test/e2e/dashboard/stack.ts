/** Kept for imports of the old path: test/e2e/harness.ts is the one e2e harness (canonical). */
export { reverseWithKey, startStack, useStack, type Stack } from '../harness';
