/**
 * The node test environment, plus a record of which test file left a process handle open (a child process, a
 * server, a socket, a timer that keeps Node alive). On a 2-core machine Jest runs every file in its own process
 * (one worker means in band), so one file that forgets to stop what it started keeps Jest from exiting after the
 * run; report-handles.js names that file and stops what it left.
 */
const { TestEnvironment } = require('jest-environment-node');

class Environment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async teardown() {
    await super.teardown();
    const owners = (globalThis.__geogateHandleOwners ??= new WeakMap());
    for (const h of process._getActiveHandles()) if (!owners.has(h)) owners.set(h, this.testPath);
  }
}

module.exports = Environment;
