/**
 * The Dockerfile's split: the gateway image leaves out BACKEND_ONLY_PACKAGES, so that list must name every
 * production dependency only backend/ imports (and no package the gateway, adapters, dashboard or runtime import);
 * redoc is a build-time dependency whose bundle the build writes into dist/vendor/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dependencies?: Record<string, string>; dev?: boolean }>;
};

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The npm packages the files import or require (bare specifiers, as package names). */
function imported(files: string[]): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|require\(|import\()\s*'([^'.][^']*)'/g)) {
      const spec = m[1] as string;
      if (spec.startsWith('node:')) continue;
      out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  }
  return out;
}

const dropped = (
  /^ARG BACKEND_ONLY_PACKAGES="([^"]+)"$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1] ?? ''
)
  .split(/\s+/)
  .filter((p) => p !== '');
const gatewaySide = imported(
  ['gateway', 'adapters', 'dashboard', 'runtime'].flatMap((d) => sources(join(ROOT, d))),
);
const backendSide = imported(sources(join(ROOT, 'backend')));

test('the gateway image drops no package the gateway side imports', () => {
  expect(dropped.length).toBeGreaterThan(0);
  expect(dropped.filter((p) => gatewaySide.has(p))).toEqual([]);
});

test('every production dependency that only the backend imports is dropped from the gateway image', () => {
  const backendOnly = Object.keys(pkg.dependencies).filter((p) => backendSide.has(p) && !gatewaySide.has(p));
  expect(backendOnly.filter((p) => !dropped.includes(p))).toEqual([]);
});

test('a dropped package is needed by no package the gateway image keeps', () => {
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '' || entry.dev === true) continue;
    const name = where.replace(/^.*node_modules\//, '');
    if (dropped.includes(name)) continue;
    const needs = Object.keys(entry.dependencies ?? {}).filter((d) => dropped.includes(d));
    expect({ name, needs }).toEqual({ name, needs: [] });
  }
});

test('redoc is a build-time dependency; the build writes its bundle into dist/vendor', () => {
  expect(pkg.dependencies.redoc).toBeUndefined();
  expect(pkg.devDependencies.redoc).toBeDefined();
  expect(pkg.scripts.build).toContain('node dist/scripts/build-vendor.js');
});
