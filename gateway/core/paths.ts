/** The repository root, found from a file's folder (works from dist/**.js and from the TypeScript sources). */
import fs from 'node:fs';
import path from 'node:path';

/** The nearest ancestor of `start` (default: this file's folder) that holds package.json. */
export function repoRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
}
