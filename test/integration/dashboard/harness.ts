/** Kept for imports of the old path: test/integration/dashboard/fixture.ts is canonical. */
export * from './fixture';
