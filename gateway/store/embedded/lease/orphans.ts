/**
 * A process alone on the file (the memory owner: `workers: 1`, or the cluster primary before it forks its workers)
 * folds what lease holders journalled and never folded (a gateway killed with -9, D34: kept means charged) and then
 * voids every lease: no holder is alive, so nothing is reserved any more.
 */
import { readdirSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { Journal } from '../../../journal/journal';
import { LeaseFold, type HolderRecord } from './fold';
import { LeaseRows } from './rows';

/** Journal names of lease holders (`worker-…`) found in `dir`. */
export function holderJournals(dir: string): string[] {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const f of files) {
    const m = /^(worker-[A-Za-z0-9_-]+)\.\d{8}\.log$/.exec(f);
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  return [...names].sort();
}

/** Fold every holder journal in `dir`, then void every lease; how many journals were folded. */
export async function foldHolderJournals(db: Database.Database, dir: string): Promise<number> {
  const rows = new LeaseRows(db);
  const names = holderJournals(dir);
  for (const name of names) {
    const folder = new LeaseFold(db, name, rows);
    const journal = await Journal.open<HolderRecord>({
      dir,
      name,
      foldedPosition: folder.position(),
      fold: (records, position, after) => void folder.fold(records, position, after),
      foldEveryMs: 60_000,
    });
    await journal.close();
  }
  db.transaction(() => rows.voidEverything()).immediate();
  return names.length;
}
