// Import cycles among the project's TypeScript sources, type-only and dynamic imports included (ESLint's
// import/no-cycle skips `import type`): `node scripts/check-cycles.mjs gateway` lists every cycle that touches a file
// under gateway/ and exits 1 when there is one. Run by `npm run lint` (docs/gateway.md, "Boundaries").
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SOURCES = ['gateway', 'adapters', 'backend', 'dashboard', 'console', 'runtime'];
const scope = process.argv.slice(2).map((d) => resolve(ROOT, d));
if (scope.length === 0) scope.push(resolve(ROOT, 'gateway'));

/** Every .ts file (not .d.ts) under `dir`. */
function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The project file a relative specifier names, or null (a package, or not a .ts source). */
function resolveSpec(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (p.endsWith('.ts') && graph.has(p)) return p;
  }
  return null;
}

const files = SOURCES.flatMap((d) => walk(resolve(ROOT, d)));
const graph = new Map(files.map((f) => [f, []]));
for (const f of files) {
  const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
  for (const { fileName } of info.importedFiles) {
    const to = resolveSpec(f, fileName);
    if (to) graph.get(f).push(to);
  }
}

// Tarjan's strongly connected components: each component of more than one file (or a file importing itself) holds
// a cycle.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!idx.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) !== idx.get(v)) return;
  const c = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    c.push(w);
  } while (w !== v);
  if (c.length > 1 || graph.get(v).includes(v)) components.push(c);
}
for (const v of graph.keys()) if (!idx.has(v)) connect(v);

/** One cycle through `start` inside component `c`, as a path (breadth-first, so the shortest). */
function cycleThrough(start, c) {
  const inside = new Set(c);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v)) {
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (inside.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const touching = components.filter((c) => c.some((f) => scope.some((s) => f.startsWith(s + '/'))));
for (const c of touching) {
  const path = cycleThrough(c.sort()[0], c).map((f) => relative(ROOT, f));
  console.error(`import cycle (${c.length} files): ${path.join(' -> ')}`);
}
if (touching.length > 0) process.exit(1);
console.log(
  `no import cycle in ${scope.map((s) => relative(ROOT, s)).join(', ')} (${files.length} files read)`,
);
