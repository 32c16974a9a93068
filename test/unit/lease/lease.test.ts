/** D33's lease steps one by one: grants capped by what is unleased, the 9 s stop, idle return, expiry, late posts. */
import { admit } from '../../../gateway/lease/admit';
import {
  expired,
  giveBack,
  grant,
  idle,
  keep,
  NO_LEASE,
  postLate,
  refill,
  release,
  take,
  type Lease,
} from '../../../gateway/lease/lease';

const T = 1_000_000;
const lease = (left: number, extra: Partial<Lease> = {}): Lease => ({
  ...refill(NO_LEASE, left, T),
  ...extra,
});

test('a grant is min(ask, available - leased), never negative', () => {
  expect(grant({ available: 10, leased: 7 }, 5)).toEqual({
    owner: { available: 10, leased: 10 },
    granted: 3,
  });
  expect(grant({ available: 10, leased: 10 }, 5).granted).toBe(0);
});

test.each([
  ['within the lease', 3, 2, T + 8_999, true],
  ['more than is left', 3, 4, T, false],
  ['at 9 s the holder stops spending', 3, 1, T + 9_000, false],
])('take: %s', (_name, left, units, now, ok) => {
  expect(take(lease(left), units, now) !== null).toBe(ok);
});

test('keep waits for the fold, release returns to the lease, giving back keeps what is not settled', () => {
  const l = keep(release(take(take(lease(5), 1, T) ?? NO_LEASE, 1, T) ?? NO_LEASE, 1), 1);
  expect(l).toMatchObject({ reserved: 5, left: 4, inFlight: 0, unposted: 1 });
  const back = giveBack({ available: 100, leased: 5 }, l);
  expect(back.owner).toEqual({ available: 100, leased: 1 });
  expect(back.lease).toMatchObject({ reserved: 1, left: 0, unposted: 1 });
});

test('idle after 0.5 s unused, expired 10 s after the grant', () => {
  expect(idle(lease(2), T + 499)).toBe(false);
  expect(idle(lease(2), T + 500)).toBe(true);
  expect(idle(lease(0), T + 5_000)).toBe(false);
  expect(expired(lease(2), T + 9_999)).toBe(false);
  expect(expired(lease(2), T + 10_000)).toBe(true);
});

test('a late post charges at most what is unleased and writes off the rest', () => {
  expect(postLate({ available: 5, leased: 3 }, 4)).toEqual({
    owner: { available: 3, leased: 3 },
    posted: 2,
    writtenOff: 2,
  });
});

test.each([
  // unleased, holders, units: how the owner answers a lease miss
  [0, 1, 1, 'refused'],
  [3, 1, 1, 'direct'],
  [7, 2, 2, 'direct'],
  [8, 2, 1, 'lease'],
  [2, 1, 3, 'refused'],
])('admit with %i unleased, %i holders, %i units: %s', (a, holders, units, via) => {
  const r = admit({ available: a, leased: 0 }, NO_LEASE, units, { holders, ratePerSec: 1000, now: T });
  expect(r.outcome.admitted ? r.outcome.via : 'refused').toBe(via);
  if (!r.outcome.admitted) expect(r.owner).toEqual({ available: a, leased: 0 }); // a refusal changes nothing
});
