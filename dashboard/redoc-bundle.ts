/**
 * Redoc's standalone bundle for /api-reference. `redoc` is a build-time dependency: `npm run build` writes the bundle
 * into the build output (dist/vendor/), which is what a production install serves; a development checkout without a
 * build falls back to node_modules. Either way its one remote resource is removed, so the page loads nothing from
 * elsewhere.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The bundle's one remote resource, Redocly's logo from its CDN: blanked (the image then hides itself). */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Where the build writes the bundle, relative to the root. */
export const BUILT_REDOC = path.join('dist', 'vendor', 'redoc.standalone.js');

/** The bundle as the redoc package ships it. */
const packaged = (root: string): string =>
  path.join(root, 'node_modules', 'redoc', 'bundles', 'redoc.standalone.js');

/** Write the bundle, remote logo removed, into the build output; returns its path. */
export function writeRedocBundle(root: string): string {
  const out = path.join(root, BUILT_REDOC);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, readFileSync(packaged(root), 'utf8').split(REMOTE_LOGO).join(''));
  return out;
}

/** The bundle to serve: the built one, else (a development checkout) the package's, remote logo removed. */
export function redocBundle(root: string): Buffer {
  const built = path.join(root, BUILT_REDOC);
  if (existsSync(built)) return readFileSync(built);
  if (!existsSync(packaged(root)))
    throw new Error(`${BUILT_REDOC} is missing: run "npm run build" (redoc is a build-time dependency)`);
  return Buffer.from(readFileSync(packaged(root), 'utf8').split(REMOTE_LOGO).join(''));
}
