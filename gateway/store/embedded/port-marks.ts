/** The embedded store's marks part (MarkStore): single-use marks and windowed counters. */
import type Database from 'better-sqlite3';
import type { MarkStore } from '../ports';
import { Late } from './late';
import { EmbeddedMarks } from './single-use';
import { EmbeddedWindows } from './throttle';

/** Marks and windows on one SQLite connection; their statements are prepared at start(). */
export class EmbeddedMarkStore implements MarkStore {
  private readonly marks = new Late<EmbeddedMarks>();
  private readonly windows = new Late<EmbeddedWindows>();

  /** Prepare the statements: once the tables exist. */
  start(db: Database.Database): void {
    this.marks.set(new EmbeddedMarks(db));
    this.windows.set(new EmbeddedWindows(db));
  }

  async consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean> {
    return this.marks.get().consumeOnce(id, expiresAt, now);
  }
  async isConsumed(id: string, now: number): Promise<boolean> {
    return this.marks.get().isConsumed(id, now);
  }
  async hitWindow(name: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    return this.windows.get().hitWindow(name, windowMs, now);
  }
}
