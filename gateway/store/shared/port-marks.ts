/** The shared store's marks part (MarkStore): single-use marks in PostgreSQL, windowed counters in Redis. */
import type { MarkStore } from '../ports';
import type { SharedContext } from './context';
import { SharedMarks } from './single-use';
import { SharedWindows } from './throttle';

/** Marks and windows of one shared store. */
export class SharedMarkStore implements MarkStore {
  private readonly marks: SharedMarks;
  private readonly windows: SharedWindows;

  constructor(private readonly c: SharedContext) {
    this.marks = new SharedMarks(c.knex);
    this.windows = new SharedWindows(c.redis, c.layout.prefix);
  }

  consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean> {
    return this.c.pg(() => this.marks.consumeOnce(id, expiresAt, now));
  }
  isConsumed(id: string, now: number): Promise<boolean> {
    return this.c.pg(() => this.marks.isConsumed(id, now));
  }
  hitWindow(name: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    return this.windows.hitWindow(name, windowMs, now);
  }
}
