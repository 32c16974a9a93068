/**
 * When each key was last used, from data the store already keeps (no per-request write): the newest of its usage
 * rows over the last 90 days (a day) and, while an address holds one of its IP slots, that slot's last request (a
 * time and the address).
 */
import { DAY_MS, utcDay } from '../../gateway/core/clock';
import type { AppContext } from '../context';
import type { KeyJson } from './views';

type Deps = Pick<AppContext, 'store' | 'rules' | 'clock'>;

/** How far back the day is looked for. */
export const LAST_USED_DAYS = 90;

/** A key's last use: a UTC day, and the last request's time and address while a slot holds it. */
export interface LastUsed {
  day: string;
  at: number | null;
  address: string | null;
}

/** The last use of each of `keys` (absent: none in the last LAST_USED_DAYS days). One usage read, one per key's slots. */
export async function lastUsed(d: Deps, keys: readonly KeyJson[]): Promise<Map<string, LastUsed>> {
  const out = new Map<string, LastUsed>();
  if (keys.length === 0) return out;
  const now = d.clock.now();
  const rows = await d.store.usage(
    keys.map((k) => `key:${k.id}`),
    utcDay(now - (LAST_USED_DAYS - 1) * DAY_MS),
    utcDay(now),
  );
  for (const r of rows) {
    if (r.free + r.billed === 0) continue;
    const id = r.subject.slice(4);
    const seen = out.get(id);
    if (seen === undefined || r.day > seen.day) out.set(id, { day: r.day, at: null, address: null });
  }
  const { slotMode } = d.rules;
  await Promise.all(
    keys
      .filter((k) => k.status === 'active')
      .map(async (k) => {
        const slots = await d.store.listSlots(`key:${k.id}`, slotMode, d.rules.limits.slotWindowMs, now);
        let last: (typeof slots)[number] | undefined;
        for (const s of slots) if (last === undefined || s.lastSeen > last.lastSeen) last = s;
        if (last === undefined) return;
        out.set(k.id, { day: utcDay(last.lastSeen), at: last.lastSeen, address: last.member });
      }),
  );
  return out;
}
