/** knex's better-sqlite3 dialect class (untyped in knex's package); subclassed to share one connection. */
declare module 'knex/lib/dialects/better-sqlite3' {
  class Client_BetterSQLite3 {
    constructor(config: unknown);
    acquireRawConnection(): Promise<unknown>;
    destroyRawConnection(connection: unknown): Promise<void>;
  }
  export = Client_BetterSQLite3;
}
