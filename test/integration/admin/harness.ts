/** Kept for imports of the old path: test/integration/admin/fixture.ts is canonical. */
export * from './fixture';
