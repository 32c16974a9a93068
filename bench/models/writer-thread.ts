/**
 * The writer thread of the `journal+fold…+thread` model (models/journal.ts): its own connection to the store's file, one
 * transaction per batch the gateway's thread posts. For measurement only.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { writeBehind, type Admitted } from './write-behind';

const db = new Database((workerData as { file: string }).file);
db.pragma('busy_timeout = 5000');
const write = writeBehind(db);
parentPort?.on('message', (batch: Admitted[]) => write(batch));
