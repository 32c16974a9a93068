/**
 * `node dist/scripts/notices.js [--check]` (after `npm run build:ts`; run by hand): writes the generated part of
 * THIRD_PARTY_NOTICES, the runtime libraries, from everything `npm ci --omit=dev` installs (package-lock.json entries
 * not marked dev), reading name, version and licence from each installed `node_modules/<pkg>/package.json`.
 * `--check` only compares and exits 1 when the file is out of date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../gateway/core/paths';

/** The line that starts the generated part; everything from it to the end of the file is rewritten. */
export const MARKER = 'PART 4 — RUNTIME LIBRARIES OF THE GATEWAY, THE DASHBOARD AND THE BACKEND (generated)';

/** One installed production package. */
export interface Notice {
  name: string;
  version: string;
  license: string;
  /** The licence file inside the package (relative to the repository root), or null when it ships none. */
  licenseFile: string | null;
}

type LockEntry = { dev?: boolean; optional?: boolean };
type PackageJson = {
  name?: string;
  version?: string;
  license?: string | { type?: string };
  licenses?: { type?: string }[];
};

/** The SPDX expression of a package.json (also the old `licenses: [{ type }]` and `license: { type }` forms). */
export function licenseOf(pkg: PackageJson): string {
  if (typeof pkg.license === 'string' && pkg.license.trim() !== '') return pkg.license.trim();
  if (typeof pkg.license === 'object' && pkg.license?.type) return pkg.license.type;
  const types = (pkg.licenses ?? []).map((l) => l.type).filter((t): t is string => !!t);
  return types.length > 0 ? `(${types.join(' OR ')})` : 'UNKNOWN';
}

/** Licence texts recognised in a package's licence file when its package.json declares none (by a sentence each). */
const TEXTS: readonly [string, RegExp][] = [
  ['MIT', /Permission is hereby granted, free of charge, to any person obtaining a copy/],
  ['ISC', /Permission to use, copy, modify, and\/or distribute this software for any purpose/],
  ['Apache-2.0', /Apache License\s+Version 2\.0/],
];

/** The SPDX identifier of a licence file's text, or null when it is none of TEXTS. */
export function licenseFromText(text: string): string | null {
  const t = text.replace(/\s+/g, ' ');
  for (const [id, sentence] of TEXTS) if (sentence.test(t)) return id;
  return null;
}

/** The package's licence file (LICENSE, LICENCE, COPYING, DBIP-LICENSE, LICENSE.md, any case), or null. */
function licenseFileIn(dir: string): string | null {
  const found = fs
    .readdirSync(dir)
    .filter((f) => /(^|[-_.])(licen[cs]e|copying)([-_.]|$)/i.test(f))
    .sort();
  return found[0] ?? null;
}

/** Every production package installed under `root` (lockfile entries without `dev`), sorted by name and version. */
export function collectNotices(root: string): Notice[] {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const out: Notice[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '' || entry.dev) continue;
    const dir = path.join(root, where);
    if (!fs.existsSync(path.join(dir, 'package.json'))) {
      if (entry.optional) continue; // an optional package this platform did not install
      throw new Error(`${where} is in package-lock.json but not installed (run npm install first)`);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
    const file = licenseFileIn(dir);
    let license = licenseOf(pkg);
    // A package.json without a licence (png-js 2.0.0): the licence file's text, marked as read from it.
    const fromFile =
      license === 'UNKNOWN' && file ? licenseFromText(fs.readFileSync(path.join(dir, file), 'utf8')) : null;
    if (fromFile !== null) license = `${fromFile} (read from ${file}; package.json declares none)`;
    out.push({
      name: pkg.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length),
      version: pkg.version ?? '?',
      license,
      licenseFile: file ? `${where}/${file}` : null,
    });
  }
  const key = (n: Notice) => `${n.name}@${n.version}`;
  const unique = new Map(out.map((n) => [key(n), n]));
  return [...unique.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The generated part of the file. */
export function renderNotices(notices: readonly Notice[]): string {
  const width = Math.max(...notices.map((n) => `${n.name}@${n.version}`.length));
  const lines = notices.map((n) => {
    const id = `${n.name}@${n.version}`.padEnd(width);
    return `${id}  ${n.license}${n.licenseFile ? '' : '  (the package ships no licence file)'}`;
  });
  const counts = new Map<string, number>();
  for (const n of notices) counts.set(n.license, (counts.get(n.license) ?? 0) + 1);
  const summary = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([l, c]) => `${l} ${c}`)
    .join(', ');
  return [
    MARKER,
    '-'.repeat(MARKER.length),
    'Every package `npm ci --omit=dev` installs (the production dependencies in package.json and their own',
    'production dependencies; the container image ships exactly these in /app/node_modules), with the licence',
    'identifier each declares in its package.json (where it declares none, the one its licence file states, marked',
    'so). The full licence texts and copyright notices are in each package:',
    'node_modules/<name>/LICENSE (or LICENCE, LICENSE.md, ...), shipped with it. Part 2 above repeats the texts of',
    'the libraries the backend uses. Generated by scripts/notices.ts from package-lock.json and node_modules.',
    '',
    `${notices.length} packages: ${summary}.`,
    '',
    ...lines,
    '',
  ].join('\n');
}

/** The notices file with its generated part replaced (or appended). */
export function withNotices(current: string, generated: string): string {
  const at = current.indexOf(MARKER);
  const head = (at >= 0 ? current.slice(0, at) : current).replace(/\s*$/, '\n\n');
  return head + generated;
}

function main(argv: readonly string[]): void {
  const root = repoRoot();
  const file = path.join(root, 'THIRD_PARTY_NOTICES');
  const current = fs.readFileSync(file, 'utf8');
  const notices = collectNotices(root);
  const next = withNotices(current, renderNotices(notices));
  if (argv.includes('--check')) {
    if (next !== current) {
      console.error('notices: THIRD_PARTY_NOTICES is out of date; run node dist/scripts/notices.js');
      process.exit(1);
    }
    console.log(`notices: up to date (${notices.length} packages)`);
    return;
  }
  fs.writeFileSync(file, next);
  const unknown = notices.filter((n) => n.license === 'UNKNOWN').map((n) => `${n.name}@${n.version}`);
  console.log(`notices: wrote ${notices.length} packages to ${file}`);
  if (unknown.length > 0) console.log(`notices: no licence declared by ${unknown.join(', ')}`);
}

if (require.main === module) main(process.argv.slice(2));
