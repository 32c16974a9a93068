/**
 * The gateways and stores of `npm run bench:gateway`: a gateway process (with its workers) started with a scenario's
 * config, and the stores of the run, started and seeded (bench/lib/seed.ts) when a scenario first needs them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StoreConfig } from '../../gateway/store';
import { repoRoot } from '../../gateway/core/paths';
import type { Scenario, StoreKind, StoreSize } from './scenarios';
import { createDatabase, freePort, startRedis, type BenchRedis } from './services';
import { BENCH_PEPPER, LARGE, seedStore, type Seeded } from './seed';
import { start, stop, type Proc } from './spawn';
import { startAuthNginx, waitPort, type AuthNginx } from './auth-nginx';

/** Extra node options for the gateway (BENCH_NODE_ARGS). */
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
/** Where each gateway process writes its event-loop delay histogram (BENCH_ELD_DIR). */
const ELD_DIR = process.env['BENCH_ELD_DIR'];

/** The store section of a gateway config file. */
export function storeYaml(cfg: StoreConfig, extra?: string): string {
  const more = extra !== undefined ? `, ${extra}` : '';
  if (cfg.kind === 'embedded') return `store: { kind: embedded, path: "${cfg.path}"${more} }`;
  const prefix = cfg.keyPrefix !== undefined ? `, keyPrefix: "${cfg.keyPrefix}"` : '';
  return `store: { kind: shared, postgres: "${cfg.postgres}", redis: "${cfg.redis}"${prefix}${more} }`;
}

/** A gateway process (with its workers) for a scenario. */
export async function gateway(
  dir: string,
  s: Scenario,
  /** Names the gateway's config file (and its event-loop histogram): unique in the run. */
  id: string,
  backendUrl: string,
  cfg: StoreConfig,
  main = 'dist/gateway/main.js',
  ablate?: string,
): Promise<Gateway> {
  if (s.program !== undefined) return start(s.program, ['--backend', backendUrl], NODE_ARGS);
  const faPort = s.mount === 'forward-auth' ? await freePort() : 0;
  const file = path.join(dir, `gateway-${id}.yaml`);
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
      `backend: { url: "${backendUrl}" }`,
      storeYaml(cfg, s.storeOptions),
      `keyPepper: "${BENCH_PEPPER}"`,
      // Through the auth nginx the host is its $host (127.0.0.1), and the client address its X-Forwarded-For.
      s.mount === 'forward-auth'
        ? 'hosts: [{ name: "127.0.0.1", adapter: native }]'
        : 'hosts: [{ name: localhost, adapter: native }]',
      ...(s.mount === 'forward-auth'
        ? [`forwardAuth: { listen: { host: 127.0.0.1, port: ${faPort} } }`, 'trustProxy: ["127.0.0.1/32"]']
        : []),
      `limits: { freePerDay: ${s.billed ? 0 : 1_000_000_000} }`,
      'log: { level: warn }',
      'drain: { delayMs: 0 }',
      ...(s.workers > 1 ? [`workers: ${s.workers}`] : []),
      ...(s.yaml ?? []),
    ].join('\n'),
  );
  const eld =
    ELD_DIR !== undefined ? ['--require', path.join(repoRoot(), 'dist/bench/lib/eld-probe.js')] : [];
  const env: NodeJS.ProcessEnv =
    ELD_DIR !== undefined ? { GG_ELD_FILE: path.join(ELD_DIR, `eld-${id}`) } : {};
  // An ablated variant runs the composition root with the parts of models/ablate.ts (models/gateway.ts).
  if (ablate !== undefined) env['GG_ABLATE'] = ablate;
  if (s.mount === 'library')
    return start('dist/bench/run/library-app.js', ['--config', file, '--server', 'express'], NODE_ARGS, env);
  const program = ablate !== undefined ? 'dist/bench/models/gateway.js' : main;
  const gw = await start(program, ['--config', file], [...NODE_ARGS, ...eld], env, s.workers);
  if (s.mount !== 'forward-auth') return gw;
  await waitPort(faPort);
  const edge = await startAuthNginx(`http://127.0.0.1:${faPort}`, backendUrl);
  return { url: edge.url, child: gw.child, companion: edge };
}

/** A gateway of a scenario: the gateway process, and the auth nginx in front of it (forward-auth scenarios). */
export type Gateway = Proc & { companion?: AuthNginx };

/** Stop a scenario's gateway and what runs in front of it. */
export async function stopGateway(gw: Gateway): Promise<void> {
  await gw.companion?.stop();
  await stop(gw);
}

/** The stores of the run, started and seeded when a scenario first needs them. */
export class Stores {
  private seeded = new Map<string, Promise<Seeded>>();
  redis: BenchRedis | null = null;

  constructor(private readonly dir: string) {}

  get(kind: StoreKind, size: StoreSize, variant = ''): Promise<Seeded> {
    const id = `${kind}-${size}${variant}`;
    let s = this.seeded.get(id);
    if (!s) {
      s = this.open(kind, size, id);
      this.seeded.set(id, s);
    }
    return s;
  }

  private async open(kind: StoreKind, size: StoreSize, id: string): Promise<Seeded> {
    const filler = size === 'large' ? LARGE : 0;
    const t0 = Date.now();
    let cfg: StoreConfig;
    if (kind === 'embedded') cfg = { kind: 'embedded', path: path.join(this.dir, `${id}.db`) };
    else {
      this.redis ??= await startRedis();
      const postgres = await createDatabase();
      cfg = { kind: 'shared', postgres, redis: this.redis.url, keyPrefix: `bench-${id}:` };
    }
    const seeded = await seedStore(cfg, filler, this.dir, id);
    console.log(
      `bench: ${id} store seeded (10 bench keys + ${filler} accounts with a key and ${filler} addresses seen today) ` +
        `in ${Date.now() - t0} ms`,
    );
    return seeded;
  }

  all(): Promise<Seeded>[] {
    return [...this.seeded.values()];
  }
}
