/** The lifecycle port: schema, readiness and shutdown of a store. */

/** What the composition root does with a store as a whole. */
export interface Lifecycle {
  /** Create tables (knex migrations) or verify they exist. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  /* --- health: the store owns readiness; faults.ts isStoreUnavailable classifies what it throws --- */
  /**
   * Whether each of the store's databases answers now, within about 1 s each (for /readyz): `{ sqlite }` or
   * `{ redis, postgres }`; false also while the store is not fit to admit (e.g. counters being rebuilt). Never throws.
   */
  readiness(): Promise<Record<string, boolean>>;
}
