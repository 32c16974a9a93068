/** A part of the embedded store made once the schema is in place (migrate()); reading it before is a bug. */
export class Late<T> {
  private value: T | null = null;

  /** Set once the tables exist. */
  set(value: T): void {
    this.value = value;
  }

  /** The value; throws before migrate(). */
  get(): T {
    if (this.value === null) throw new Error('embedded store: migrate() was not called');
    return this.value;
  }
}
