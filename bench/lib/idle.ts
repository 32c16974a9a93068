/**
 * Idle traffic of the shared store (the target: an idle instance makes at most 5 Redis commands a second): one gateway
 * on the shared store and no requests; Redis's own command statistics over a window, split into the instance's calls
 * and the commands its scripts run inside Redis (commandstats counts both; only the first are round trips).
 */
import { insideScripts, readWindow, resetStats, type RedisWindow } from './redis-stats';

/** What an idle instance asked of Redis over `seconds`. */
export interface IdleFigures {
  seconds: number;
  window: RedisWindow;
  /** Commands a second, all of them (including those run inside scripts). */
  all: number;
  /** Commands a second sent by the instance (round trips). */
  calls: number;
}

/** Watch Redis for `seconds` once the gateway has settled (its start-up drain pass and first sweep). */
export async function idleCommands(
  port: number,
  scriptNames: string[],
  seconds: number,
): Promise<IdleFigures> {
  await new Promise((r) => setTimeout(r, 2_000));
  await resetStats(port);
  await new Promise((r) => setTimeout(r, seconds * 1_000));
  const window = await readWindow(port, scriptNames);
  return {
    seconds,
    window,
    all: window.total / seconds,
    calls: (window.total - insideScripts(window)) / seconds,
  };
}

/** The idle figures, with every command. */
export function printIdle(f: IdleFigures): void {
  const each = Object.entries(f.window.calls)
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n}${f.window.scriptNames.includes(n) ? '*' : ''} ${c}`)
    .join(', ');
  console.log(
    `\nidle, one gateway (1 worker) on the shared store, no traffic, ${f.seconds} s: **${f.calls.toFixed(2)} Redis ` +
      `calls/s** (${f.all.toFixed(2)} commands/s counting those run inside scripts*): ${each || 'none'}`,
  );
}
