/** Quota headers (D13, D21) and refusal details (D20) as pure functions. */
import { DAY_MS } from '../../../gateway/core/clock';
import { quotaHeaders, resetUnix, secondsToReset } from '../../../gateway/http/headers';
import { describeRefusal } from '../../../gateway/http/refusals';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import type { AdmissionPlan } from '../../../gateway/store/types';

const MIDNIGHT = Date.UTC(2026, 10, 23);
const NOW = MIDNIGHT - 90_500; // 90.5 s before 00:00 UTC

describe('reset times (D13)', () => {
  test('Retry-After rounds up to whole seconds; X-Quota-Reset is the Unix time of the next 00:00 UTC', () => {
    expect(secondsToReset(NOW)).toBe(91);
    expect(secondsToReset(MIDNIGHT)).toBe(86400);
    expect(resetUnix(NOW)).toBe(MIDNIGHT / 1000);
  });
});

describe('quotaHeaders (D21)', () => {
  test('A: RateLimit fields; Retry-After only on quota_exceeded; no x-quota', () => {
    expect(quotaHeaders(RULE_SET_A, { used: 7, limit: 2500 }, NOW, false)).toEqual({
      'ratelimit-policy': '"daily";q=2500;w=86400',
      ratelimit: '"daily";r=2493;t=91',
    });
    expect(quotaHeaders(RULE_SET_A, { used: 2500, limit: 2500 }, NOW, true)).toMatchObject({
      ratelimit: '"daily";r=0;t=91',
      'retry-after': '91',
    });
  });
  test('B: x-quota-* on every answer, used capped at the limit, limit and reset even without a counter; a 429 adds Retry-After', () => {
    expect(quotaHeaders(RULE_SET_B, { used: 3000, limit: 2500 }, NOW, true)).toEqual({
      'ratelimit-policy': '"daily";q=2500;w=86400',
      ratelimit: '"daily";r=0;t=91',
      'x-quota-limit': '2500',
      'x-quota-used': '2500',
      'x-quota-reset': String(MIDNIGHT / 1000),
      'retry-after': '91',
    });
    expect(quotaHeaders(RULE_SET_B, null, NOW, false)).toEqual({
      'x-quota-limit': '2500',
      'x-quota-reset': String(MIDNIGHT / 1000),
    });
  });
});

describe('describeRefusal (D20)', () => {
  const plan = (over: Partial<AdmissionPlan> = {}): AdmissionPlan => ({
    id: 'adm_1',
    now: NOW,
    day: '2026-11-22',
    slots: [
      {
        scope: 'key:k',
        member: '203.0.113.1/32',
        capacity: 2,
        mode: 'fixed',
        windowMs: DAY_MS,
        refuse: 'key_ip_limit',
      },
    ],
    free: [],
    overflow: { kind: 'refuse', code: 'quota_exceeded' },
    usage: [],
    keyId: 'k',
    ...over,
  });
  test('key_ip_limit states when the next slot frees', () => {
    const r = describeRefusal('key_ip_limit', plan(), MIDNIGHT + 5000);
    expect(r.detail).toBe(
      'All 2 IP slots of this key are held by other addresses; the next slot frees at 2026-11-23T00:00:05.000Z.',
    );
    expect(r.facts).toEqual({ nextSlotFreeAt: MIDNIGHT + 5000 });
  });
  test('quota_exceeded carries retry_after and quota_reset', () => {
    expect(describeRefusal('quota_exceeded', plan(), undefined).facts).toEqual({
      retryAfter: 91,
      quotaReset: MIDNIGHT / 1000,
    });
  });
});
