#!/usr/bin/env node
/** `geogate`: the command-line client of the admin API (D15). See docs/admin.md. */
import { checkAppConfig } from '../../runtime/config-check';
import { runCli } from './run';

/** All of standard input as UTF-8 text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  readStdin,
  checkConfig: checkAppConfig,
}).then(
  (code) => {
    process.exitCode = code;
    // The command is done: do not wait for connections a failed store could not close (unref: a clean exit is sooner).
    setTimeout(() => process.exit(code), 1_000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`geogate: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
