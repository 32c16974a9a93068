/**
 * globalTeardown: names every handle a test file left open (it keeps the process alive after the run), stops it
 * (child processes get SIGKILL, servers and sockets are closed, timers unreferenced), so a leak is named by the file
 * that made it rather than found as a CI run that never ends. jest.config.js also sets forceExit, the last resort for
 * a handle this cannot close.
 */
const { relative } = require('node:path');
const { ChildProcess } = require('node:child_process');
const { Server, Socket } = require('node:net');

function describe(h) {
  if (h instanceof ChildProcess) return `child process ${h.pid} (${h.spawnargs.slice(0, 3).join(' ')})`;
  if (h instanceof Server) {
    const a = h.address();
    return `server listening on ${a && typeof a === 'object' ? `${a.address}:${a.port}` : a}`;
  }
  if (h instanceof Socket) {
    if (h.remotePort) return `socket to ${h.remoteAddress}:${h.remotePort}`;
    return `socket (${h.constructor.name}${h.readable ? ', readable' : ''})`;
  }
  return h && h.constructor ? h.constructor.name : typeof h;
}

function stop(h) {
  try {
    if (h instanceof ChildProcess) h.kill('SIGKILL');
    else if (h instanceof Server) h.close();
    else if (h instanceof Socket) h.destroy();
    else if (h && typeof h.hasRef === 'function' && typeof h.unref === 'function') h.unref();
    else if (h && typeof h.close === 'function') h.close();
  } catch {
    // a handle that cannot be stopped is left to forceExit
  }
}

module.exports = async () => {
  // What a file closes asynchronously (a socket's FIN, a child's exit) gets a moment to finish first.
  await new Promise((r) => setTimeout(r, 1000));
  const owners = globalThis.__geogateHandleOwners ?? new WeakMap();
  const left = [];
  for (const h of process._getActiveHandles()) {
    const owner = owners.get(h);
    if (owner === null) continue; // Jest's own
    if (h instanceof Socket && (h === process.stdout || h === process.stderr || h === process.stdin))
      continue;
    if (typeof h.hasRef === 'function' && !h.hasRef()) continue; // does not keep the process alive
    left.push({ h, owner });
  }
  if (left.length === 0) return;
  const lines = left.map(
    ({ h, owner }) =>
      `  ${describe(h)}: left by ${owner ? relative(process.cwd(), owner) : 'an unknown file'}`,
  );
  process.stderr.write(
    `\nOpen handles after the run (they would keep Jest from exiting):\n${lines.join('\n')}\n`,
  );
  for (const { h } of left) stop(h);
};
