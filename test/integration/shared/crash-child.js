/**
 * Child process of crash.test.ts: one "gateway instance" on the shared store that admits billed requests with 8
 * parallel loops, printing each plan id only after `admit` resolved (the answer the gateway would send). The parent
 * kills it with SIGKILL mid-load. Runs the TS sources through TypeScript's transpileModule (no build needed).
 * With GEOGATE_KEEP=1 it waits for each admission's keep (Store.keep) before printing it: "answered" then means
 * kept. (The gateway's settle stage does not wait; an answer whose keep a crash cut short is released by the sweeper.)
 * Each line is `billed <plan id> lease|owner` (decided from the credit lease, D33, or by the owner's script).
 * Usage: node crash-child.js <postgresUrl> <redisUrl> <keyPrefix> <accountId> <keyId>
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      esModuleInterop: true,
    },
  });
  module._compile(out.outputText, filename);
};

const root = path.join(__dirname, '..', '..', '..');
const { openSharedStore } = require(path.join(root, 'gateway', 'store', 'shared', 'index.ts'));

/** Write a line whole, waiting while the pipe is full (EAGAIN: the parent reads slower than the loops print). */
function print(line) {
  const buf = Buffer.from(line);
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
}

async function main() {
  const [postgres, redis, keyPrefix, accountId, keyId] = process.argv.slice(2);
  const now = Number(process.env.GEOGATE_T0);
  const day = new Date(now).toISOString().slice(0, 10);
  const store = await openSharedStore({ postgres, redis, keyPrefix });
  fs.writeSync(1, 'ready\n');
  let i = 0;
  const loop = async () => {
    for (;;) {
      const plan = {
        id: `crash-${process.pid}-${i++}`,
        now,
        day,
        slots: [
          {
            scope: `key:${keyId}`,
            member: '192.0.2.9',
            capacity: 2,
            mode: 'fixed',
            windowMs: 86400000,
            refuse: 'key_ip_limit',
          },
        ],
        free: [{ id: `key:${keyId}`, limit: 0 }],
        overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
        usage: [`key:${keyId}`],
        keyId,
      };
      // a paced client (about one admission per loop and millisecond), as a gateway's requests come from the network:
      // a lease decides without I/O, so unpaced loops would starve the holder's flush timer and flood the pipe
      await new Promise((resolve) => setTimeout(resolve, 1));
      const r = await store.admit(plan);
      if (!r.admitted) throw new Error(`refused: ${r.code}`);
      // GEOGATE_KEEP=1: an answer counts only once its keep landed (the sweeper test checks answered = charged).
      if (process.env.GEOGATE_KEEP === '1') await store.keep(r.ticket);
      // A pipe write is synchronous on Linux: once written, the parent can read it even after a SIGKILL.
      // "lease": decided from this instance's credit lease (D33), "owner": by the owner's script in Redis
      const via = r.ticket.undo && r.ticket.undo.v === 'lease-1' ? 'lease' : 'owner';
      print(`billed ${plan.id} ${via}\n`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, loop));
}

main().catch((err) => {
  fs.writeSync(2, `${err.stack}\n`);
  process.exit(1);
});
