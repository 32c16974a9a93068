/**
 * The Prometheus alert rules shipped in docs/prometheus/: `promtool check rules` accepts them, `promtool test rules`
 * proves each alert fires on the series meant to trigger it, and every metric they read is one the gateway exports,
 * except the ones the file's header names as not emitted yet.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayMetrics } from '../../../gateway/metrics/gateway-metrics';

const DIR = join(__dirname, '../../../docs/prometheus');

/** Run promtool (Debian's prometheus package; scripts/install-tools.sh installs it). */
function promtool(...args: string[]) {
  const r = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool missing (bash scripts/install-tools.sh): ${r.error.message}`);
  return r;
}

test('promtool check rules accepts the alert rules', () => {
  const r = promtool('check', 'rules', 'alerts.yml');
  expect(r.stderr).toBe('');
  expect(r.stdout).toContain('SUCCESS: 7 rules found');
  expect(r.status).toBe(0);
});

test('promtool test rules: each alert fires on its trigger and not on a healthy series', () => {
  const r = promtool('test', 'rules', 'alerts.test.yml');
  expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test('the rules cover store, backend, 5xx, refusals, webhooks and direct mode', () => {
  const text = readFileSync(join(DIR, 'alerts.yml'), 'utf8');
  const alerts = [...text.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
  expect(alerts).toEqual([
    'GeogateInstanceDown',
    'GeogateStoreUnavailable',
    'GeogateBackendDown',
    'GeogateHigh5xxRatio',
    'GeogateRefusalSpike',
    'GeogateWebhookFailures',
    'GeogateDirectModeShare',
  ]);
});

test('every metric the rules read is exported by the gateway, or named in the header as not emitted yet', async () => {
  const text = readFileSync(join(DIR, 'alerts.yml'), 'utf8');
  const header = text.slice(0, text.indexOf('groups:'));
  const pending = new Set([...header.matchAll(/#\s+(geogate_\w+)\{/g)].map((m) => m[1]));
  expect([...pending].sort()).toEqual(['geogate_webhook_deliveries_total']);
  const body = text.slice(text.indexOf('groups:'));
  const used = new Set([...body.matchAll(/\b(geogate_\w+)/g)].map((m) => m[1] as string));
  const exported = new Set(
    (await new GatewayMetrics([]).registry.getMetricsAsJSON()).map((m) => m.name as string),
  );
  for (const name of used) {
    if (pending.has(name)) expect(exported.has(name)).toBe(false);
    else expect({ name, exported: exported.has(name) }).toEqual({ name, exported: true });
  }
});
