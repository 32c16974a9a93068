/** CPU time of measured processes from /proc: a process and its descendants (cluster workers, nginx's worker). */
import { readFileSync, readdirSync } from 'node:fs';

/** The pid and its descendants (Linux /proc/<pid>/task/<tid>/children); just the pid elsewhere. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i] as number;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        if (kids) for (const k of kids.split(/\s+/)) out.push(Number(k));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return out;
}

/** CPU time (user + system) of one process in ms from /proc/<pid>/stat; NaN when unavailable. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** A measured process: its CPU is that of its whole tree, read at the start and the end of a window. */
export interface Measured {
  name: string;
  pid: number | undefined;
}

/** CPU ms of each process tree, per pid of the tree (so a process that exits midway does not count negative). */
export function treeCpu(pid: number | undefined): Map<number, number> {
  const m = new Map<number, number>();
  if (pid === undefined) return m;
  for (const p of processTree(pid)) m.set(p, cpuMs(p));
  return m;
}

/** CPU ms spent between two snapshots of one tree (processes in both). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  if (after.size === 0) return NaN;
  let sum = 0;
  for (const [p, ms] of after) sum += ms - (before.get(p) ?? ms);
  return sum;
}

/** Resident memory (MB) of a process and its descendants, from /proc/<pid>/status VmRSS; NaN when unavailable. */
export function treeRssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  let kb = 0;
  for (const p of processTree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return kb > 0 ? kb / 1024 : NaN;
}
