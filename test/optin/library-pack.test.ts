/**
 * `npm run test:library` (opt-in: the install compiles better-sqlite3 and fetches the package's dependencies): the
 * package as a user gets it. `npm pack` of this build, installed with express and fastify from the registry into a
 * fresh temporary project, type-checked from its declarations, then the scenarios of
 * test/integration/library/scenarios.ts through it. npm's own cache (~/.npm, or GEOGATE_NPM_CACHE) is used with
 * --prefer-offline, so a repeated run downloads nothing.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLibrary, type LibrarySite } from '../integration/library/scenarios';

const ROOT = join(__dirname, '..', '..');
const NPM = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const cache = process.env['GEOGATE_NPM_CACHE'];
const site: LibrarySite = { app: '', module: 'geogate', cwd: '' };
let dir = '';

/** Run npm in `cwd`; its output is returned (and shown when it fails). */
function npm(cwd: string, args: string[]): string {
  return execFileSync('npm', [...args, ...NPM, ...(cache ? ['--cache', cache] : [])], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-pack-'));
  npm(ROOT, ['pack', '--pack-destination', dir]);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const project = join(dir, 'app');
  execFileSync('mkdir', [project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'geogate-library-user', private: true, allowScripts: { 'better-sqlite3': true } }),
  );
  npm(project, ['install', '--omit=dev', join(dir, tarball), 'express@5.3.0', 'fastify@5.12.8']);
  copyFileSync(join(ROOT, 'test', 'fixtures', 'library', 'app.js'), join(project, 'app.js'));
  site.app = join(project, 'app.js');
  site.cwd = project;
}, 20 * 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the package names its entry and its declarations; a TypeScript user compiles against them', () => {
  const check = join(site.cwd, 'check.ts');
  writeFileSync(
    check,
    [
      "import { createGeogate, ConfigError, GeogateArgumentError, type Decision } from 'geogate';",
      "export async function use(req: import('node:http').IncomingMessage): Promise<Decision> {",
      "  const gate = await createGeogate({ configFile: 'geogate.yaml' });",
      "  gate.middleware({ host: 'localhost' });",
      '  const d = await gate.admit(req, { units: 2 });',
      "  if (d.admitted) await d.settle('record');",
      '  return d;',
      '}',
      'export const errors = [ConfigError, GeogateArgumentError];',
    ].join('\n'),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    '--noEmit',
    '--strict',
    '--module',
    'node16',
    '--moduleResolution',
    'node16',
    '--types',
    'node',
  ];
  const typeRoots = ['--typeRoots', join(ROOT, 'node_modules', '@types')];
  try {
    execFileSync(process.execPath, [tsc, ...args, ...typeRoots, check], { cwd: site.cwd, encoding: 'utf8' });
  } catch (err) {
    // The compiler's own messages, not only "Command failed".
    throw new Error(`tsc: ${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')) ?? '');
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  expect(files).toContain('package/dist/runtime/library.d.ts');
  expect(files).not.toContain('package/dist/bench/');
  expect(files).not.toContain('package/test/');
});

describeLibrary(() => site);
