/** Kept for imports of the old path: test/integration/shared/fixture.ts is canonical. */
export { ADMIN_TOKEN, PEPPER, startPair, T0, type Instance, type Pair } from './fixture';
