/**
 * Burst limits (gateway/policy/burst.ts): fixed UTC-second and UTC-minute windows per subject, all-or-nothing over a
 * request's subjects, given back when the admission refuses (D10), and split between processes so that the shares of
 * one window add up to the limit exactly. Config validation of the `burst:` section names the field at fault.
 */
import fc from 'fast-check';
import { compileConfig, validateConfig } from '../../../runtime/config';
import {
  BurstLimiter,
  burstSubjects,
  isBurstRefusal,
  shareOf,
  type BurstConfig,
  type BurstShare,
} from '../../../gateway/policy/burst';
import type { Identity } from '../../../gateway/policy/identity';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { parseAddress, type IpAddress } from '../../../gateway/net/address';
import type { Account, ApiKey } from '../../../gateway/store/types';

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0); // a minute boundary
const ADDRESS = parseAddress('203.0.113.7') as IpAddress;
const account = { id: 'acc_1', status: 'active' } as Account;
const key = (burst?: ApiKey['burst']): Identity => ({
  kind: 'key',
  key: { id: 'key_1', accountId: 'acc_1', ...(burst ? { burst } : {}) } as ApiKey,
  account,
});
const config = (c: Partial<BurstConfig>): BurstConfig => ({
  key: null,
  account: null,
  anonymous: null,
  ...c,
});

/** Admitted of n requests at time t for the identity, with the limiter's windows. */
function run(l: BurstLimiter, c: BurstConfig | null, id: Identity, t: number, n: number): number {
  const subjects = burstSubjects(c, id, RULE_SET_A, ADDRESS);
  let ok = 0;
  for (let i = 0; i < n; i++) if (!isBurstRefusal(l.take(subjects, t))) ok++;
  return ok;
}

describe('burst limiter: one process', () => {
  it('admits perSecond requests in a UTC second, refuses the next with Retry-After 1, and admits again next second', () => {
    const l = new BurstLimiter();
    const c = config({ key: { perSecond: 5, perMinute: null } });
    expect(run(l, c, key(), T0 + 100, 8)).toBe(5);
    const refused = l.take(burstSubjects(c, key(), RULE_SET_A, ADDRESS), T0 + 999);
    expect(refused).toEqual({
      scope: 'key',
      window: 'second',
      limit: 5,
      retryAfter: 1,
      fields: { policy: '"burst";q=5;w=1', state: '"burst";r=0;t=1' },
    });
    expect(run(l, c, key(), T0 + 1000, 8)).toBe(5);
  });

  it('the per-minute window refuses with the seconds left in the minute (at least 1)', () => {
    const l = new BurstLimiter();
    const c = config({ key: { perSecond: 100, perMinute: 12 } });
    expect(run(l, c, key(), T0 + 1_000, 10)).toBe(10);
    expect(run(l, c, key(), T0 + 20_000, 10)).toBe(2);
    const r = l.take(burstSubjects(c, key(), RULE_SET_A, ADDRESS), T0 + 20_500);
    expect(r).toMatchObject({ scope: 'key', window: 'minute', limit: 12, retryAfter: 40 });
    expect(isBurstRefusal(r) && r.fields.state).toBe('"burst";r=97;t=1, "burst-minute";r=0;t=40');
    const late = l.take(burstSubjects(c, key(), RULE_SET_A, ADDRESS), T0 + 59_999);
    expect(isBurstRefusal(late) && late.retryAfter).toBe(1);
    // The next minute starts empty (its map replaced the last one's).
    expect(run(l, c, key(), T0 + 60_000, 20)).toBe(12);
    expect(l.size).toBe(1);
  });

  it("a key's own limits replace the deployment's window by window; without either, nothing is counted", () => {
    const c = config({ key: { perSecond: 2, perMinute: 100 } });
    expect(run(new BurstLimiter(), c, key({ perSecond: 7 }), T0, 20)).toBe(7);
    expect(run(new BurstLimiter(), c, key({ perMinute: 3 }), T0, 20)).toBe(2);
    expect(run(new BurstLimiter(), null, key({ perSecond: 4 }), T0, 20)).toBe(4);
    expect(burstSubjects(null, key(), RULE_SET_A, ADDRESS)).toEqual([]);
    expect(
      burstSubjects(
        config({ key: { perSecond: 1, perMinute: null } }),
        { kind: 'anonymous' },
        RULE_SET_A,
        ADDRESS,
      ),
    ).toEqual([]);
  });

  it('counts a keyed request to its key and its account, all or none: a refusal by the account counts nothing to the key', () => {
    const l = new BurstLimiter();
    const c = config({ key: { perSecond: 10, perMinute: null }, account: { perSecond: 3, perMinute: null } });
    expect(run(l, c, key(), T0, 5)).toBe(3);
    const other: Identity = { kind: 'key', key: { id: 'key_2', accountId: 'acc_1' } as ApiKey, account };
    const r = l.take(burstSubjects(c, other, RULE_SET_A, ADDRESS), T0);
    expect(isBurstRefusal(r) && r.scope).toBe('account');
    // Next second: key_2 was never counted, so it has its whole limit up to the account's.
    expect(run(l, c, other, T0 + 1000, 5)).toBe(3);
  });

  it('anonymous callers are counted per counting unit (D4: an IPv6 /64 is one unit in rule set A)', () => {
    const l = new BurstLimiter();
    const c = config({ anonymous: { perSecond: 2, perMinute: null } });
    const at = (ip: string) =>
      burstSubjects(c, { kind: 'anonymous' }, RULE_SET_A, parseAddress(ip) as IpAddress);
    expect(isBurstRefusal(l.take(at('2001:db8::1'), T0))).toBe(false);
    expect(isBurstRefusal(l.take(at('2001:db8::2'), T0))).toBe(false);
    expect(isBurstRefusal(l.take(at('2001:db8::3'), T0))).toBe(true);
    expect(isBurstRefusal(l.take(at('2001:db8:0:1::1'), T0))).toBe(false);
  });

  it('give() undoes a take (the admission refused: D10), and is a no-op once the minute has passed', () => {
    const l = new BurstLimiter();
    const c = config({ key: { perSecond: 1, perMinute: 2 } });
    const subjects = burstSubjects(c, key(), RULE_SET_A, ADDRESS);
    const taken = l.take(subjects, T0);
    if (isBurstRefusal(taken)) throw new Error('refused');
    l.give(taken);
    expect(run(l, c, key(), T0, 3)).toBe(1);
    expect(run(l, c, key(), T0 + 1000, 3)).toBe(1);
    expect(run(l, c, key(), T0 + 2000, 3)).toBe(0);
    const before = l.take(subjects, T0 + 60_000);
    if (isBurstRefusal(before)) throw new Error('refused');
    l.give({ ...before, minute: before.minute - 1 });
    expect(run(l, c, key(), T0 + 60_000, 3)).toBe(0);
  });

  it('an admitted request carries each limited window as RateLimit items, at its tightest subject', () => {
    const l = new BurstLimiter();
    const c = config({ key: { perSecond: 10, perMinute: 600 }, account: { perSecond: 4, perMinute: null } });
    const taken = l.take(burstSubjects(c, key(), RULE_SET_A, ADDRESS), T0 + 17_250);
    if (isBurstRefusal(taken)) throw new Error('refused');
    expect(taken.fields).toEqual({
      policy: '"burst";q=4;w=1, "burst-minute";q=600;w=60',
      state: '"burst";r=3;t=1, "burst-minute";r=599;t=43',
    });
  });
});

describe('burst limiter: shares between processes', () => {
  it('the shares of one window add up to the limit exactly, whatever the limit, peers and window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 16 }),
        fc.nat(),
        (limit, peers, w) => {
          let sum = 0;
          for (let rank = 0; rank < peers; rank++) sum += shareOf(limit, { peers, rank }, w);
          return sum === limit;
        },
      ),
    );
  });

  it('a limit below the number of peers rotates: over `peers` windows each process gets its part', () => {
    const over = (rank: number) => [0, 1, 2, 3].map((w) => shareOf(1, { peers: 2, rank }, w));
    expect(over(0)).toEqual([1, 0, 1, 0]);
    expect(over(1)).toEqual([0, 1, 0, 1]);
  });

  it('two processes under even load admit the limit exactly, per second and per minute', () => {
    const shares: BurstShare[] = [
      { peers: 2, rank: 0 },
      { peers: 2, rank: 1 },
    ];
    const limiters = shares.map((s) => new BurstLimiter(() => s));
    const c = config({ key: { perSecond: 15, perMinute: 400 } });
    let admitted = 0;
    for (let s = 0; s < 60; s++) {
      let inSecond = 0;
      for (let i = 0; i < 40; i++)
        inSecond += run(limiters[i % 2] as BurstLimiter, c, key(), T0 + s * 1000 + i, 1);
      expect(inSecond).toBeLessThanOrEqual(15);
      admitted += inSecond;
    }
    expect(admitted).toBe(400);
  });

  it('reads the share on every decision (a heartbeat changes it while running)', () => {
    let share: BurstShare = { peers: 2, rank: 0 };
    const l = new BurstLimiter(() => share);
    const c = config({ key: { perSecond: 10, perMinute: null } });
    expect(run(l, c, key(), T0, 20)).toBe(5);
    share = { peers: 1, rank: 0 };
    expect(run(l, c, key(), T0 + 1000, 20)).toBe(10);
  });
});

describe('burst config', () => {
  const base = () => ({
    policy: 'A',
    backend: { url: 'http://127.0.0.1:8090' },
    store: { kind: 'embedded', path: './data/x.db' },
    keyPepper: 'p'.repeat(32),
    hosts: [{ name: 'localhost', adapter: 'native' }],
  });
  const refused = (burst: unknown): string => {
    try {
      validateConfig({ ...base(), burst }, 'config/x.yaml', {});
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('the config was accepted');
  };

  it.each([
    [{ key: { perSecond: 0 } }, 'burst.key.perSecond'],
    [{ account: { perMinute: -5 } }, 'burst.account.perMinute'],
    [{ anonymous: { perSecond: 2.5 } }, 'burst.anonymous.perSecond'],
    [{ key: { perSecond: '10' } }, 'burst.key.perSecond'],
    [{ key: { perSecnd: 10 } }, 'burst.key.perSecnd'],
    [{ keys: { perSecond: 10 } }, 'burst.keys'],
  ])('refuses %j naming %s', (burst, field) => {
    expect(refused(burst)).toContain(`config/x.yaml: ${field}: `);
  });

  it('refuses a scope with no window, naming it', () => {
    expect(refused({ key: {} })).toBe(
      'config/x.yaml: burst.key: give perSecond, perMinute or both (or leave the scope out)',
    );
  });

  it('compiles absent windows and scopes to null, and no section to null (nothing to check per request)', () => {
    const c = compileConfig(
      validateConfig({ ...base(), burst: { key: { perSecond: 10 } } }, 'x.yaml', {}),
      'x.yaml',
    );
    expect(c.burst).toEqual({ key: { perSecond: 10, perMinute: null }, account: null, anonymous: null });
    expect(compileConfig(validateConfig(base(), 'x.yaml', {}), 'x.yaml').burst).toBeNull();
  });
});
