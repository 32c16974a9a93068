/**
 * `node dist/bench/lib/cpuprofile-top.js FILE.cpuprofile [N] [SKIP_S]`: the top N functions by self time of a V8 CPU
 * profile (node --cpu-prof, e.g. written by `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" npm run bench:gateway`),
 * self time summed per source file (node_modules package or project file), idle and GC shown apart, and the top N
 * project functions by total time (self + callees). SKIP_S: the first seconds of samples are left out (start-up and
 * module loading, which a request never pays).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  parent?: number;
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** The file a frame belongs to: "pkg" for node_modules, the project path, or node's internal module. */
function where(url: string): string {
  if (url === '') return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 6) : url.replace(/^node:/, 'node:');
}

function main(): void {
  const [file, n = '25', skip = '0'] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile-top FILE.cpuprofile [N] [SKIP_S]');
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  for (const x of p.nodes) for (const c of x.children ?? []) (byId.get(c) as Node).parent = x.id;
  const self = new Map<number, number>();
  const skipUs = Number(skip) * 1e6;
  let at = 0;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (at >= skipUs) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)');
  const idleUs = idle.reduce((a, [, t]) => a + t, 0);
  const busy = total - idleUs;
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, t] of self) {
    const f = byId.get(id)?.callFrame;
    if (!f || f.functionName === '(idle)') continue;
    const key = `${f.functionName || '(anonymous)'} ${where(f.url)}:${f.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + t);
    files.set(where(f.url), (files.get(where(f.url)) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1)} %`;
  console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (not idle)`);
  console.log('\nself time by function (share of busy time):');
  for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(n)))
    console.log(`  ${pct(t)}  ${k}`);
  console.log('\nself time by file or package:');
  for (const [k, t] of [...files].sort((a, b) => b[1] - a[1]).slice(0, Number(n)))
    console.log(`  ${pct(t)}  ${k}`);
  // Total time: each sample counts once for every distinct function on its stack.
  const totals = new Map<string, number>();
  for (const [id, t] of self) {
    const seen = new Set<string>();
    for (let x = byId.get(id); x !== undefined; x = x.parent === undefined ? undefined : byId.get(x.parent)) {
      const f = x.callFrame;
      if (f.url === '' || f.url.includes('node_modules/') || f.url.startsWith('node:')) continue;
      const key = `${f.functionName || '(anonymous)'} ${where(f.url)}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + t);
    }
  }
  console.log('\ntotal time (self + callees) of project functions:');
  for (const [k, t] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(n)))
    console.log(`  ${pct(t)}  ${k}`);
}

main();
