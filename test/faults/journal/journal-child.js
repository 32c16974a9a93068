/**
 * Child process of journal-kill.test.ts: a journal whose fold writes to a real SQLite file in one transaction with
 * the position, driven by turns of admissions, keeps and releases. It prints `kept <id>` only after the turn that
 * holds the keep was written (the answer the gateway would send). Runs the TS sources through TypeScript's
 * transpileModule (no build needed). Environment:
 *   GG_DIR, GG_DB: journal folder and SQLite file; GG_MODE: `run` (default) or `replay` (open, replay, exit);
 *   GG_PAUSE_AFTER: in `run`, stop after that many turns and print `paused`;
 *   GG_HANG: `before-commit` | `after-commit`: hang inside / right after fold number GG_HANG_AT, printing
 *   `folding` / `folded` (the parent kills it there).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const Database = require('better-sqlite3');

require.extensions['.ts'] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  module._compile(out.outputText, filename);
};

const root = path.join(__dirname, '..', '..', '..');
const { Journal } = require(path.join(root, 'gateway', 'journal', 'journal.ts'));
const { Settler, hourlyCharges } = require(path.join(root, 'gateway', 'journal', 'settle.ts'));

const env = process.env;
const MODE = env.GG_MODE ?? 'run';
const HANG = MODE === 'run' ? (env.GG_HANG ?? 'none') : 'none';
const HANG_AT = Number(env.GG_HANG_AT ?? 3);
const PAUSE_AFTER = Number(env.GG_PAUSE_AFTER ?? 0);
const T0 = Date.UTC(2026, 10, 27, 9, 59, 59);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const print = (line) => fs.writeSync(1, `${line}\n`);
const hang = (line) => {
  print(line);
  for (;;) Atomics.wait(sleeper, 0, 0, 60_000);
};

const db = new Database(env.GG_DB);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS position (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
  INSERT OR IGNORE INTO position VALUES (1, 0);
  CREATE TABLE IF NOT EXISTS kept (id TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS charges (account TEXT NOT NULL, key TEXT NOT NULL, hour INTEGER NOT NULL,
    count INTEGER NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (account, key, hour));`);
const getPos = db.prepare('SELECT seq FROM position WHERE id = 1').pluck();
const setPos = db.prepare('UPDATE position SET seq = ? WHERE id = 1');
const addKept = db.prepare('INSERT INTO kept (id) VALUES (?)');
const addCharge = db.prepare(`INSERT INTO charges VALUES (@account, @key, @hour, @count, @amount)
  ON CONFLICT (account, key, hour) DO UPDATE SET count = count + excluded.count, amount = amount + excluded.amount`);

let folds = 0;
let settler = new Settler(); // one per replay stream; a fresh one per fold once running
const foldTx = db.transaction((records, position, after) => {
  if (getPos.get() !== after) return; // a repeat of a fold that committed
  const s = settler.add(records);
  for (const k of s.kept) addKept.run(k.id);
  for (const row of hourlyCharges(s.kept)) addCharge.run(row);
  setPos.run(position);
  folds += 1;
  if (HANG === 'before-commit' && folds >= HANG_AT) hang('folding');
});
function fold(records, position, after) {
  foldTx(records, position, after);
  if (HANG === 'after-commit' && folds >= HANG_AT) hang('folded');
}

async function main() {
  const journal = await Journal.open({
    dir: env.GG_DIR,
    name: 'worker-1',
    foldedPosition: getPos.get(),
    fold,
    foldEveryMs: 20,
    segmentBytes: 16 * 1024,
    keepFolded: 1_000_000,
    onError: (e) => print(`error ${e.message}`),
  });
  const unsettled = settler.unsettled().length; // released: nothing durable was charged for them
  settler = { add: (records) => new Settler().add(records) };
  if (MODE === 'replay') {
    await journal.close();
    print(`replayed ${journal.foldedPosition} released ${unsettled}`);
    return;
  }
  let n = 0;
  let turn = 0;
  const open = [];
  const step = () => {
    turn += 1;
    const answered = [];
    for (let i = 0; i < 8; i++) {
      const seq = n++;
      const id = `${process.pid}-${seq}`;
      journal.append({ t: 'a', id, account: 'acc', key: `k${seq % 3}`, units: 1, amount: 100, at: T0 + seq });
      open.push(id);
    }
    // Settle the oldest 7 open admissions: 6 keeps and a release; the newest stay in flight.
    for (const [i, id] of open.splice(0, 7).entries()) {
      if (i === 3) journal.append({ t: 'r', id });
      else {
        const seq = Number(id.split('-')[1]);
        journal.append({
          t: 'k',
          id,
          account: 'acc',
          key: `k${seq % 3}`,
          units: 1,
          amount: 100,
          at: T0 + seq,
        });
        answered.push(id);
      }
    }
    journal.written().then(() => {
      if (answered.length > 0) print(answered.map((id) => `kept ${id}`).join('\n'));
      if (PAUSE_AFTER > 0 && turn >= PAUSE_AFTER) hang('paused');
      setImmediate(step);
    });
  };
  step();
}

main().catch((e) => {
  print(`error ${e.stack}`);
  process.exit(1);
});
