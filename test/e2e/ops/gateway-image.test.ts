/**
 * The gateway image's files, assembled as the Dockerfile's `gateway` stage lays them out (its COPY lines, production
 * dependencies without BACKEND_ONLY_PACKAGES, no build/geodata, no redoc): the compiled gateway runs from them
 * (`--preserve-symlinks`, so a package is found only where the image would have it), answers through the real
 * backend, and its dashboard serves the API reference with the redoc bundle from the build output.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { spawnAndWait } from '../../helpers/gateway-processes';
import { call, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

const ROOT = join(__dirname, '../../..');
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
let dir: string;
useTempDir('geogate-image-', (d) => (dir = d));
const backend = useBackendProcess();
let gw: RunningProcess | null = null;
afterAll(async () => {
  await gw?.stop();
});

/** The instructions of one build stage of the Dockerfile. */
function stage(name: string): string[] {
  const lines = DOCKERFILE.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^FROM \\S+ AS ${name}$`).test(l));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('FROM '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The Dockerfile's list of the packages the gateway image leaves out. */
function backendOnlyPackages(): string[] {
  const m = /^ARG BACKEND_ONLY_PACKAGES="([^"]+)"$/m.exec(DOCKERFILE);
  if (!m) throw new Error('Dockerfile: no BACKEND_ONLY_PACKAGES');
  return (m[1] as string).split(/\s+/);
}

/** Top-level production packages (npm ls --omit=dev over the same lockfile), as node_modules-relative names. */
function productionPackages(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const top = join(ROOT, 'node_modules');
  return out
    .split('\n')
    .filter((p) => p.startsWith(`${top}/`))
    .map((p) => relative(top, p))
    .filter((p) => !p.includes('/node_modules/'))
    .filter((p, i, all) => all.indexOf(p) === i);
}

/** Lay out the gateway image's /app in `app`: COPY lines of the runtime and gateway stages, node_modules linked. */
function assemble(app: string): void {
  for (const line of [...stage('runtime'), ...stage('gateway')]) {
    const m = /^COPY (--from=(\S+) )?(.+) (\S+)$/.exec(line);
    if (!m) continue;
    const from = m[2];
    const sources = m[3] as string;
    const dest = m[4] as string;
    if (from === 'gateway-deps') continue; // node_modules: below
    if (from !== undefined && from !== 'build') throw new Error(`unexpected COPY --from=${from}`);
    for (const src of sources.split(' ')) {
      const local = from === 'build' ? src.replace(/^\/app\//, '') : src;
      const target = sources.includes(' ') ? join(app, dest, local) : join(app, dest);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(ROOT, local), target, { recursive: true });
    }
  }
  const dropped = new Set(backendOnlyPackages());
  for (const name of productionPackages()) {
    if (dropped.has(name)) continue;
    const target = join(app, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), target);
  }
}

test('the gateway runs from its image files: no backend data packages, no redoc, the API reference still served', async () => {
  const app = join(dir, 'app');
  assemble(app);
  for (const name of [...backendOnlyPackages(), 'redoc', 'react'])
    expect({ name, present: existsSync(join(app, 'node_modules', name)) }).toEqual({ name, present: false });
  expect(existsSync(join(app, 'build', 'geodata'))).toBe(false);
  expect(existsSync(join(app, 'dist', 'vendor', 'redoc.standalone.js'))).toBe(true);

  // config/docker.yaml, the image's default, on loopback ephemeral ports.
  const config = join(app, 'config', 'test.yaml');
  writeFileSync(
    config,
    readFileSync(join(app, 'config', 'docker.yaml'), 'utf8')
      .replace(/host: 0\.0\.0\.0, port: 808[02]/g, 'host: 127.0.0.1, port: 0')
      .replace('port: 8081', 'port: 0')
      .concat('\ndrain: { delayMs: 0 }\n'),
  );
  gw = await spawnAndWait(
    join(app, 'dist/gateway/main.js'),
    ['--config', config],
    {
      GEOGATE_KEY_PEPPER: 'pepper-0123456789abcdef',
      GEOGATE_DASHBOARD_SECRET: 's'.repeat(40),
      GEOGATE_ADMIN_TOKEN: 'admin-token-0123456789',
      GEOGATE_BACKEND_URL: backend.url,
      GEOGATE_DATA_DIR: join(dir, 'data'),
      NODE_ENV: 'production',
    },
    4,
    ['--preserve-symlinks'],
  );
  const [main, , admin, dashboard] = gw.urls as [string, string, string, string];
  expect((await call(main, '/v1/ipv4?ip=8.8.8.8')).status).toBe(200);
  expect((await call(admin, '/readyz')).status).toBe(200);
  expect((await call(dashboard, '/api-reference')).status).toBe(200);
  const bundle = await call(dashboard, '/vendor/redoc.standalone.js');
  expect(bundle.status).toBe(200);
  expect(bundle.text).toBe(readFileSync(join(app, 'dist', 'vendor', 'redoc.standalone.js'), 'utf8'));
  expect(bundle.text).not.toContain('cdn.redoc.ly');
}, 180_000);
