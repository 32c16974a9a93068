/** Issue 14 item 4 for `npm start` (dist/scripts/start.js): SIGTERM drains like the gateway process and exits 0. */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, useTempDir } from '../harness';

const ROOT = join(__dirname, '../../..');
let dir: string;
useTempDir('geogate-start-drain-', (d) => (dir = d));

test('SIGTERM: /readyz 503 at once, then exit 0 after the drain', async () => {
  const example = readFileSync(join(ROOT, 'config/example-a.yaml'), 'utf8');
  const file = join(dir, 'a.yaml');
  writeFileSync(
    file,
    `${example.replace(/port: 808[012]/g, 'port: 0')}\ndrain: { delayMs: 500, timeoutMs: 5000 }\n`,
  );
  const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/start.js'), '--config', file], {
    env: { ...process.env, GEOGATE_DATA_DIR: dir, BACKEND_PORT: '0', GEOGATE_ADMIN_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    let out = '';
    const admin = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const url = /admin API:\s+(http:\/\/\S+)/.exec(out)?.[1];
        if (url && out.includes('keys create')) resolve(url);
      });
      void exited.then((code) => reject(new Error(`start.js exited ${code}: ${out}`)));
    });
    expect((await call(admin, '/readyz')).status).toBe(200);
    const signalled = Date.now();
    child.kill('SIGTERM');
    let readyz = 200;
    while (readyz === 200) readyz = (await call(admin, '/readyz')).status;
    expect(readyz).toBe(503);
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(500);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}, 60_000);
