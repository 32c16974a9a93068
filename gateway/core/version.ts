/** What this build is: the package version and the Node.js running it (for `--version`, `/version`, build_info). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';

/** The build's identity. */
export interface BuildInfo {
  /** `version` of the package.json at the repository (or image) root. */
  version: string;
  /** The Node.js version, e.g. `v20.19.4`. */
  node: string;
}

let cached: BuildInfo | null = null;

/** This build's identity (read once). */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  cached = { version: pkg.version ?? 'unknown', node: process.version };
  return cached;
}

/** The one line every binary prints for `--version`, e.g. `geogate-gateway 0.1.0 (node v20.19.4)`. */
export function versionLine(program: string): string {
  const b = buildInfo();
  return `${program} ${b.version} (node ${b.node})`;
}

/** Whether argv asks for the version alone. */
export function asksVersion(argv: readonly string[]): boolean {
  return argv.includes('--version') || argv.includes('-V');
}
