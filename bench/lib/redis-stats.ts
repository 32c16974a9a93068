/**
 * Redis's own command statistics for the gateway benchmark: reset before a measured window (CONFIG RESETSTAT), read
 * after it (INFO commandstats), and split into script calls, commands run inside scripts, and other client commands.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';

/** The bench's own commands on the stats connection; not the gateway's, so not counted. */
const OWN = new Set(['config|resetstat', 'info']);

/** Calls per command during a window, and how they split. */
export interface RedisWindow {
  calls: Record<string, number>;
  /** Calls that ended in an error (e.g. NOSCRIPT, answered by an EVAL of the script). */
  failed: Record<string, number>;
  total: number;
  evalsha: number;
  eval: number;
  /** Calls of commands the store's Lua scripts use (commandstats counts those too; they are no round trips). */
  scriptNames: string[];
}

async function withRedis<T>(port: number, f: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  try {
    return await f(r);
  } finally {
    r.disconnect();
  }
}

/** Zero Redis's command statistics (start of a measured window). */
export function resetStats(port: number): Promise<unknown> {
  return withRedis(port, (r) => r.config('RESETSTAT'));
}

/** Command names the store's Lua scripts call (`redis.call('X'` in gateway/store/shared/**.ts), lower case. */
export function scriptCommandNames(root: string): string[] {
  const dir = path.join(root, 'gateway', 'store', 'shared');
  const names = new Set<string>();
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.ts'));
  for (const f of files) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/redis\.p?call\(\s*['"]([A-Za-z]+)['"]/g))
      names.add((m[1] as string).toLowerCase());
  }
  return [...names].sort();
}

/** Read INFO commandstats: calls per command since the last reset, without the bench's own commands. */
export async function readWindow(port: number, scriptNames: string[]): Promise<RedisWindow> {
  const info = await withRedis(port, (r) => r.info('commandstats'));
  const calls: Record<string, number> = {};
  const failed: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+),.*failed_calls=(\d+)/gm)) {
    if (OWN.has(m[1] as string)) continue;
    calls[m[1] as string] = Number(m[2]);
    if (Number(m[3]) > 0) failed[m[1] as string] = Number(m[3]);
  }
  const total = Object.values(calls).reduce((a, b) => a + b, 0);
  return { calls, failed, total, evalsha: calls['evalsha'] ?? 0, eval: calls['eval'] ?? 0, scriptNames };
}

/** Sum of calls of the commands the store's scripts use. */
export function insideScripts(w: RedisWindow): number {
  return w.scriptNames.reduce((a, n) => a + (w.calls[n] ?? 0), 0);
}

/** "name calls (per admitted)" for every command, most frequent first, e.g. "evalsha 20000 (1.000)". */
export function perAdmitted(w: RedisWindow, admitted: number): string {
  return Object.entries(w.calls)
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => {
      const failed = w.failed[n] ? `, ${w.failed[n]} failed` : '';
      return `${n}${w.scriptNames.includes(n) ? '*' : ''} ${c} (${(c / admitted).toFixed(3)}${failed})`;
    })
    .join(', ');
}
