/**
 * Windowed counters in Redis: one script per hit, so every instance sees the same count. The window's end is kept
 * in the hash in the callers' time (the injected clock); PEXPIRE only frees the key once the window is over.
 */
import { requireWindow, type WindowCount } from '../throttle';
import { redisFault } from './errors';
import type { RedisClient } from './redis-client';

/** KEYS[1] the counter; ARGV now, windowMs. Returns {count, resetAt}. */
const HIT_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local reset = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
if reset <= now then
  reset = now + window
  redis.call('HSET', KEYS[1], 'c', 1, 'r', reset)
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, reset}
end
return {redis.call('HINCRBY', KEYS[1], 'c', 1), reset}
`;

/** Windowed counters under one key prefix. */
export class SharedWindows {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** See Store.hitWindow. */
  async hitWindow(name: string, windowMs: number, now: number): Promise<WindowCount> {
    requireWindow(name, windowMs, now);
    try {
      const [count, resetAt] = (await this.redis.eval(
        HIT_LUA,
        1,
        `${this.prefix}throttle:${name}`,
        now,
        windowMs,
      )) as [number, number];
      return { count: Number(count), resetAt: Number(resetAt) };
    } catch (err) {
      throw redisFault(err);
    }
  }
}
