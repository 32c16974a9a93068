/** In-memory fixed-window limiter for sign-in attempts (per address and per e-mail), on the injected clock. */
import type { Clock } from '../gateway/core/clock';

/** Counts attempts per name within a window. */
export class AttemptLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Count one attempt; returns null when allowed, else the seconds until the window ends. */
  hit(name: string): number | null {
    const now = this.clock.now();
    let w = this.windows.get(name);
    if (!w || now - w.start >= this.windowMs) {
      if (this.windows.size >= 100_000) this.prune(now);
      w = { start: now, count: 0 };
      this.windows.set(name, w);
    }
    if (w.count >= this.limit) return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    w.count++;
    return null;
  }

  /** Forget expired windows so the map stays bounded. */
  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}
