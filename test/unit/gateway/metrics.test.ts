/** The metrics' own parts: cell-backed histograms and counters, and the shared store's key cache counters. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { GatewayMetrics } from '../../../gateway/metrics/gateway-metrics';
import { IdentityCache } from '../../../gateway/store/shared/cache';
import type { AdmissionStore } from '../../../gateway/store/ports';
import { measuredStore } from '../../../gateway/metrics/measured';
import type { AdmissionPlan, AdmissionResult, KeyIdentity } from '../../../gateway/store/types';
import { parseExposition, sampleValue } from '../../helpers/exposition';

const scrape = async (m: GatewayMetrics) => parseExposition((await m.scrape()).body);

describe('GatewayMetrics', () => {
  test('a histogram renders cumulative buckets, +Inf, sum and count from its cell', async () => {
    const m = new GatewayMetrics([]);
    const cell = m.backend('reverse');
    for (const v of [0.0007, 0.003, 0.003, 20]) cell.observe(v);
    const s = await scrape(m);
    const bucket = (le: string) =>
      sampleValue(s, 'geogate_backend_duration_seconds_bucket', { backend: 'reverse', le });
    expect([bucket('0.0005'), bucket('0.001'), bucket('0.005'), bucket('10'), bucket('+Inf')]).toEqual([
      0, 1, 3, 3, 4,
    ]);
    expect(sampleValue(s, 'geogate_backend_duration_seconds_sum', { backend: 'reverse' })).toBeCloseTo(
      20.0067,
    );
    expect(sampleValue(s, 'geogate_backend_duration_seconds_count', { backend: 'reverse' })).toBe(4);
  });

  test('refusals are counted by code, one series per code', async () => {
    const m = new GatewayMetrics([]);
    m.refused('no_credits');
    m.refused('no_credits');
    m.refused('quota_exceeded');
    const s = await scrape(m);
    expect(sampleValue(s, 'geogate_admission_refusals_total', { code: 'no_credits' })).toBe(2);
    expect(sampleValue(s, 'geogate_admission_refusals_total', { code: 'quota_exceeded' })).toBe(1);
  });

  test('key cache hits and misses of the shared store cache are read at each scrape', async () => {
    const clock = new ManualClock(0);
    const cache = new IdentityCache(5_000, clock);
    const m = new GatewayMetrics([]);
    m.watchKeyCache(() => cache.stats);
    const load = () => Promise.resolve<KeyIdentity | null>(null);
    await cache.key('h1', load); // miss
    await cache.key('h1', load); // hit
    await cache.key('h2', load); // miss
    clock.advance(5_000);
    await cache.key('h1', load); // expired: miss
    const s = await scrape(m);
    expect(sampleValue(s, 'geogate_key_cache_lookups_total', { result: 'hit' })).toBe(1);
    expect(sampleValue(s, 'geogate_key_cache_lookups_total', { result: 'miss' })).toBe(3);
    await cache.account('a1', () => Promise.resolve(null)); // accounts are not key lookups
    expect(sampleValue(await scrape(m), 'geogate_key_cache_lookups_total', { result: 'miss' })).toBe(3);
  });
});

describe('docs/grafana/geogate.json', () => {
  test('every metric the dashboard queries is one the gateway exposes', async () => {
    const m = new GatewayMetrics([]);
    m.backend('ipv4').observe(0.01);
    m.admission(1);
    m.refused('no_credits');
    m.storeOp('admit').seconds.observe(0.001);
    m.watchKeyCache(() => ({ hits: 1, misses: 1 }));
    const exposed = new Set((await scrape(m)).map((s) => s.name));
    exposed.add('geogate_requests_total').add('geogate_request_duration_seconds_bucket'); // per host, none here
    const json = readFileSync(join(__dirname, '../../../docs/grafana/geogate.json'), 'utf8');
    const queried = new Set(json.match(/\b(?:geogate|nodejs|process)_[a-z0-9_]+/g));
    expect(queried.size).toBeGreaterThanOrEqual(10);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
  });
});

describe('measuredStore', () => {
  test('a failing store call is counted and timed, the caller gets the same error; admissions count free, billed, refused', async () => {
    const m = new GatewayMetrics([]);
    const boom = new Error('connect ECONNREFUSED');
    const ticket = { planId: 'p', undo: null };
    const results: AdmissionResult[] = [
      { admitted: true, billed: false, charged: 0, quota: null, ticket },
      { admitted: true, billed: true, charged: 1, quota: null, ticket },
      { admitted: false, code: 'no_credits', quota: null },
    ];
    const bare = {
      findKeyByHash: () => Promise.reject(boom),
      admit: () => Promise.resolve(results.shift()!),
    } as unknown as AdmissionStore;
    const store = measuredStore(bare, m);
    await expect(store.findKeyByHash('h')).rejects.toBe(boom);
    for (let i = 0; i < 3; i++) await store.admit({} as AdmissionPlan);
    const s = await scrape(m);
    expect(sampleValue(s, 'geogate_store_failures_total', { op: 'find_key' })).toBe(1);
    expect(sampleValue(s, 'geogate_store_duration_seconds_count', { op: 'find_key' })).toBe(1);
    expect(sampleValue(s, 'geogate_store_failures_total', { op: 'admit' })).toBe(0);
    expect(sampleValue(s, 'geogate_store_duration_seconds_count', { op: 'admit' })).toBe(3);
    expect(sampleValue(s, 'geogate_admissions_total', { billing: 'free' })).toBe(1);
    expect(sampleValue(s, 'geogate_admissions_total', { billing: 'billed' })).toBe(1);
    expect(sampleValue(s, 'geogate_admission_refusals_total', { code: 'no_credits' })).toBe(1);
  });
});
