/**
 * Preloaded into a gateway process by the bench (`--require dist/bench/eld-probe.js`, BENCH_ELD_DIR): records the
 * event-loop delay histogram (perf_hooks, 1 ms resolution… 10 µs here) and writes its percentiles as JSON to
 * `$GG_ELD_FILE.<pid>.json` when the process exits. It changes nothing in the gateway.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env['GG_ELD_FILE'];
if (file) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  process.once('exit', () => {
    h.disable();
    const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;
    const out = {
      pid: process.pid,
      count: h.count,
      minMs: ms(h.min),
      p50Ms: ms(h.percentile(50)),
      p90Ms: ms(h.percentile(90)),
      p99Ms: ms(h.percentile(99)),
      p999Ms: ms(h.percentile(99.9)),
      maxMs: ms(h.max),
      meanMs: ms(h.mean),
    };
    writeFileSync(`${file}.${process.pid}.json`, JSON.stringify(out) + '\n');
  });
}
