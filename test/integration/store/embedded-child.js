/**
 * Child process of embedded-durability.test.ts: opens the embedded store on a file and admits billed requests in a
 * loop, printing each plan id only after `admit` resolved (the answer the gateway would send). Runs the TS sources
 * through TypeScript's transpileModule (no build needed). Usage: node embedded-child.js <db> <accountId> <keyId> <scope>
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

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

const { createStore } = require(path.join(__dirname, '..', '..', '..', 'gateway', 'store', 'index.ts'));
const { ManualClock, utcDay } = require(
  path.join(__dirname, '..', '..', '..', 'gateway', 'core', 'clock.ts'),
);

const IN_FLIGHT = 8;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Write a whole line to fd 1 before returning (retrying when a non-blocking pipe is full). */
function printLine(text) {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += fs.writeSync(1, bytes, done);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1); // the parent has not read yet: wait 1 ms
    }
  }
}

async function main() {
  const [dbPath, accountId, keyId, scope] = process.argv.slice(2);
  const now = Number(process.env.GEOGATE_T0);
  // GEOGATE_KEEP=1: crash recovery on, and each admission kept before it is answered (the gateway's settle stage).
  const keep = process.env.GEOGATE_KEEP === '1';
  const cfg = keep
    ? { kind: 'embedded', path: dbPath, reservationTimeoutMs: 60000 }
    : { kind: 'embedded', path: dbPath };
  const store = await createStore(cfg, { clock: new ManualClock(now) });
  let next = 0;
  // IN_FLIGHT admissions at a time, so the kill also lands on group commits of several admissions.
  const worker = async () => {
    for (;;) {
      const i = next++;
      const plan = {
        id: `dur-${process.pid}-${i}`,
        now,
        day: utcDay(now),
        slots: [
          {
            scope,
            member: '192.0.2.9',
            capacity: 2,
            mode: 'fixed',
            windowMs: 86400000,
            refuse: 'key_ip_limit',
          },
        ],
        free: [{ id: `key:${keyId}`, limit: 3 }],
        overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
        usage: [`key:${keyId}`],
        keyId,
      };
      const r = await store.admit(plan);
      if (!r.admitted) throw new Error(`refused: ${r.code}`);
      if (keep) await store.keep(r.ticket);
      // Written with fs.writeSync: once it returns, the line is in the pipe and the parent reads it even after a
      // SIGKILL. (process.stdout on a pipe is asynchronous in Node 20: when the parent reads slowly, lines wait in
      // this process and a SIGKILL loses them, so the parent undercounted what was answered.)
      printLine(`${r.billed ? 'billed' : 'free'} ${plan.id}\n`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

main().catch((err) => {
  fs.writeSync(2, `${err.stack}\n`);
  process.exit(1);
});
