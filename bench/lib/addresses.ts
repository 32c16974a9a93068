/**
 * Many client addresses for the "anonymous over 100,000 addresses" scenarios. The gateway counts an anonymous caller
 * by the address it sees (D3, D5: an IPv4 address is its own /32 unit). wrk's connections are keep-alive, and each
 * would keep one source address for its life: binding 127.x.y.z source addresses would give 32 addresses (one per
 * connection), not 100,000, unless every request opened a new connection, which would measure connection set-up
 * instead. So the gateway trusts the load generator as its proxy (`trustProxy: ["127.0.0.1/32"]`) and each request
 * names its client in X-Forwarded-For, as behind a production load balancer: the gateway parses the header (a cost a
 * deployment behind a proxy pays too) and then admits exactly what it would for a caller at that socket address.
 * nginx and the floor get the same header and ignore it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Addresses the load rotates over. */
export const ADDRESSES = Number(process.env['BENCH_ADDRESSES'] ?? 100_000);

/** The i-th address: 10.0.0.0 + i (distinct /32 units for i < 2^24). */
export function addressOf(i: number): string {
  return `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;
}

/** The daily counter and usage subject of the i-th address (gateway/policy/planner.ts, rule set A's /32 unit). */
export function addressSubject(i: number): string {
  return `network:${addressOf(i)}/32`;
}

/**
 * Write the wrk script: each request takes the next of ADDRESSES addresses in X-Forwarded-For; each wrk thread starts
 * at its own offset, so two threads do not send the same address at the same time.
 */
export function writeAddressScript(dir: string): string {
  const file = path.join(dir, 'addresses.lua');
  writeFileSync(
    file,
    [
      `local n = ${ADDRESSES}`,
      'local threads = 0',
      'function setup(thread)',
      '  thread:set("first", (threads * 50021) % n)',
      '  threads = threads + 1',
      'end',
      'local i = 0',
      'function init(args)',
      '  i = first or 0',
      'end',
      'request = function()',
      '  i = (i + 1) % n',
      '  local a = string.format("10.%d.%d.%d", math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256)',
      '  return wrk.format(nil, nil, { ["X-Forwarded-For"] = a })',
      'end',
      '',
    ].join('\n'),
  );
  return file;
}
