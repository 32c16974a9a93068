/**
 * A real Nominatim for the opt-in suite: the installation `scripts/nominatim-setup.sh` made under data/nominatim
 * (launcher, project dir, imported database), served by `nominatim serve` on a free loopback port.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Where scripts/nominatim-setup.sh puts the venv or launcher and the project dir. */
export const NOMINATIM_HOME = process.env.NOMINATIM_HOME ?? join(ROOT, 'data', 'nominatim');

/** A running `nominatim serve`. */
export interface NominatimServer {
  url: string;
  /** Everything the server printed (uvicorn's access log names each request's path and query). */
  output(): string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bound and released: the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `nominatim serve` on 127.0.0.1 (`onPort`, else a free port); waits at most `waitMs` for `/status` 200. */
export async function startNominatim(waitMs = 60_000, onPort?: number): Promise<NominatimServer> {
  const launcher = join(NOMINATIM_HOME, 'bin', 'nominatim');
  const project = join(NOMINATIM_HOME, 'project');
  if (!existsSync(launcher) || !existsSync(join(project, 'import.done'))) {
    throw new Error(
      `no imported Nominatim under ${NOMINATIM_HOME}: run "bash scripts/nominatim-setup.sh" first`,
    );
  }
  const port = onPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(launcher, ['serve', '--server', `127.0.0.1:${port}`, '--project-dir', project], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nominatim serve exited with ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${url}/status`)).status === 200) return { url, output: () => out, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`nominatim serve did not answer /status within ${waitMs} ms:\n${out}`);
}
