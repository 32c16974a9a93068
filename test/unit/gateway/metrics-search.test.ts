/** Forward lookups (issue 11) get their own backend latency series: `geogate_backend_duration_seconds{backend="search"}`. */
import { GatewayMetrics } from '../../../gateway/metrics/gateway-metrics';

test('a search call is timed under backend="search", not under reverse or ipv4', async () => {
  const m = new GatewayMetrics([]);
  m.backendAnswered('search', 12);
  m.backendAnswered('search', 30);
  m.backendAnswered('reverse', 5);
  const { body } = await m.scrape();
  const count = (backend: string): number =>
    Number(
      new RegExp(`^geogate_backend_duration_seconds_count\\{backend="${backend}"\\} (\\d+)$`, 'm').exec(
        body,
      )?.[1],
    );
  expect([count('search'), count('reverse'), count('ipv4')]).toEqual([2, 1, 0]);
});
