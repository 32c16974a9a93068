import { spawn } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve(__dirname, '../../../dist/backend/main.js');

/** Runs main.js until its ready line, then SIGTERM; resolves with all stdout and the exit code. */
function runUntilReady(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; code: number | string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let signalled = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    // Once only: the line may arrive in several chunks, and a second SIGTERM means "force quit".
    if (!signalled && /listening on .*\n/.test(stdout)) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ stdout, code: code ?? `${signal}: ${stderr}` })),
  );
}

describe('backend process (dist/backend/main.js, needs `npm run build`)', () => {
  it('prints exactly one stdout line "listening on http://HOST:PORT" with --port 0 and exits 0 on SIGTERM', async () => {
    const { stdout, code } = await runUntilReady(['--port', '0']);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(code).toBe(0);
  }, 30_000);

  it('takes the host from BACKEND_HOST', async () => {
    const { stdout } = await runUntilReady(['--port', '0'], { BACKEND_HOST: '127.0.0.2' });
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.2:\d+/);
  }, 30_000);

  it('refuses a bad --port with exit code 2 and a message on stderr', async () => {
    const child = spawn(process.execPath, [MAIN, '--port', 'eighty']);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port');
  }, 30_000);
});
