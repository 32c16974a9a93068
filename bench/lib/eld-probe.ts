/**
 * Preloaded into a gateway process by the bench (`--require dist/bench/lib/eld-probe.js`, BENCH_ELD_DIR): records the
 * event-loop delay histogram (perf_hooks, sampled every 10 ms) and writes its percentiles as JSON to
 * `$GG_ELD_FILE.<pid>.json` when the process exits. Node records the interval between samples, so the delay is that
 * minus the 10 ms resolution (written as `delay…Ms`). It changes nothing in the gateway.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env['GG_ELD_FILE'];
const RESOLUTION_MS = 10;
if (file) {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  process.once('exit', () => {
    h.disable();
    // The recorded value is the sampling interval: subtract the resolution to get the delay.
    const ms = (ns: number) => Math.max(0, Math.round(ns / 1e3) / 1e3 - RESOLUTION_MS);
    const out = {
      pid: process.pid,
      count: h.count,
      delayMinMs: ms(h.min),
      delayP50Ms: ms(h.percentile(50)),
      delayP90Ms: ms(h.percentile(90)),
      delayP99Ms: ms(h.percentile(99)),
      delayP999Ms: ms(h.percentile(99.9)),
      delayMaxMs: ms(h.max),
      delayMeanMs: ms(h.mean),
    };
    writeFileSync(`${file}.${process.pid}.json`, JSON.stringify(out) + '\n');
  });
}
