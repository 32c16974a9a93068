/**
 * The deployment kit (deploy/): the compose file as Debian's docker-compose resolves it, and the Kubernetes manifests
 * validated against the Kubernetes API schemas (kubernetes-models), with the drain window, the probes, the Secret
 * references and the config they carry checked against the gateway's own config (deploy/gateway.yaml).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { checkAppConfig } from '../../../runtime/config-check';
import { useTempDir } from '../../helpers/fixture';

const ROOT = join(__dirname, '../../..');
const DEPLOY = join(ROOT, 'deploy');
const MANIFESTS = ['backend.yaml', 'configmap.yaml', 'gateway.yaml'].map((f) =>
  join(DEPLOY, 'kubernetes', f),
);
let dir: string;
useTempDir('geogate-deploy-', (d) => (dir = d));

/** The secrets the kit's config reads, as an operator would set them. */
const SECRETS = {
  GEOGATE_POSTGRES_PASSWORD: 'pg-password',
  GEOGATE_KEY_PEPPER: 'pepper-0123456789abcdef',
  GEOGATE_ADMIN_TOKEN: 'admin-token-0123456789',
  GEOGATE_DASHBOARD_SECRET: 's'.repeat(40),
};

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests and compose output are untyped YAML */
type J = any;

/** `docker-compose config` on the kit's compose file with `env`. */
function composeConfig(env: Record<string, string>) {
  const r = spawnSync('docker-compose', ['-f', join(DEPLOY, 'compose', 'compose.yaml'), 'config'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  if (r.error) throw new Error(`docker-compose missing (bash scripts/install-tools.sh): ${r.error.message}`);
  return r;
}

/** The documents of the Kubernetes manifests. */
function manifests(): J[] {
  return MANIFESTS.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS()));
}
const find = (kind: string, name: string): J => {
  const found = manifests().find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};

/** The kit's config as the gateway reads it. */
const kitConfig = (): J => parseYaml(readFileSync(join(DEPLOY, 'gateway.yaml'), 'utf8'));

describe('compose (docker-compose config)', () => {
  test('runs PostgreSQL, Redis, the backend, a migration and two gateways, each with a health check', () => {
    const r = composeConfig(SECRETS);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.status).toBe(0);
    const c = parseYaml(r.stdout) as J;
    const services = c.services as Record<string, J>;
    expect(Object.keys(services).sort()).toEqual(
      ['backend', 'gateway-1', 'gateway-2', 'migrate', 'postgres', 'redis'].sort(),
    );
    for (const name of ['backend', 'gateway-1', 'gateway-2', 'postgres', 'redis'])
      expect(services[name].healthcheck.test.length).toBeGreaterThan(0);
    expect(services.migrate.command).toEqual(expect.arrayContaining(['migrate']));
    expect(services.migrate.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    const drain = kitConfig().drain;
    for (const name of ['gateway-1', 'gateway-2']) {
      const g = services[name];
      expect(g.depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        backend: { condition: 'service_healthy' },
      });
      expect(g.build.target).toBe('gateway');
      expect(g.environment.GEOGATE_POSTGRES_URL).toBe('postgres://geogate:pg-password@postgres:5432/geogate');
      // The drain window fits in the grace period the orchestrator gives before SIGKILL.
      expect(Number(/^(\d+)s$/.exec(g.stop_grace_period)?.[1]) * 1000).toBeGreaterThan(
        drain.delayMs + drain.timeoutMs,
      );
    }
    expect(services.backend.build.target).toBe('backend');
  });

  test('a missing secret is refused by name', () => {
    const { GEOGATE_KEY_PEPPER: _omit, ...rest } = SECRETS;
    const r = composeConfig(rest);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('GEOGATE_KEY_PEPPER');
  });
});

describe('Kubernetes manifests', () => {
  test('every document is valid against the Kubernetes API schemas', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'test/helpers/k8s-validate.mjs'), ...MANIFESTS], {
      encoding: 'utf8',
    });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; name: string; ok: boolean; error?: string });
    expect(lines.filter((l) => !l.ok)).toEqual([]);
    expect(r.status).toBe(0);
    expect(lines.map((l) => `${l.kind}/${l.name}`).sort()).toEqual(
      [
        'ConfigMap/geogate-config',
        'Deployment/backend',
        'Deployment/gateway',
        'PodDisruptionBudget/backend',
        'PodDisruptionBudget/gateway',
        'Service/backend',
        'Service/gateway',
      ].sort(),
    );
  });

  test('the validator refuses a manifest that breaks the schema (a container port given as text)', () => {
    const bad = join(dir, 'bad.yaml');
    const deployment = find('Deployment', 'gateway');
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    writeFileSync(bad, JSON.stringify(deployment));
    const r = spawnSync(process.execPath, [join(ROOT, 'test/helpers/k8s-validate.mjs'), bad], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('containerPort must be integer');
  });

  test('the ConfigMap carries deploy/gateway.yaml unchanged, and it passes the gateway start-up check', () => {
    const data = find('ConfigMap', 'geogate-config').data['gateway.yaml'];
    expect(data).toBe(readFileSync(join(DEPLOY, 'gateway.yaml'), 'utf8'));
    const env = {
      ...SECRETS,
      GEOGATE_POSTGRES_URL: 'postgres://geogate@postgres:5432/geogate',
      GEOGATE_REDIS_URL: 'redis://redis:6379',
    };
    const summary = checkAppConfig(join(DEPLOY, 'gateway.yaml'), env);
    expect(summary).toMatchObject({ store: 'shared', dashboard: true });
  });

  test('the gateway: probes on /readyz and /healthz, the drain window, Secret references, a PodDisruptionBudget', () => {
    const d = find('Deployment', 'gateway');
    const pod = d.spec.template.spec;
    const [gateway] = pod.containers;
    const config = kitConfig();
    const adminPort = gateway.ports.find((p: J) => p.name === 'admin');
    expect(adminPort.containerPort).toBe(config.admin.listen.port);
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'admin' });
    expect(gateway.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'admin' });
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      config.drain.delayMs + config.drain.timeoutMs,
    );
    // Every ${VAR} the config needs without a default comes from the pod's environment, secrets by reference.
    const needed = [...readFileSync(join(DEPLOY, 'gateway.yaml'), 'utf8').matchAll(/\$\{([A-Z_]+)\}/g)].map(
      (m) => m[1],
    );
    const env = new Map<string, J>(gateway.env.map((e: J) => [e.name, e]));
    for (const name of needed) expect(env.has(name as string)).toBe(true);
    for (const secret of ['GEOGATE_KEY_PEPPER', 'GEOGATE_ADMIN_TOKEN', 'GEOGATE_DASHBOARD_SECRET'])
      expect(env.get(secret).valueFrom.secretKeyRef.name).toBe('geogate-secrets');
    expect(pod.initContainers[0].command).toEqual(expect.arrayContaining(['migrate']));
    const mount = gateway.volumeMounts.find((m: J) => m.name === 'config');
    expect(`${mount.mountPath}/gateway.yaml`).toBe(gateway.command[gateway.command.length - 1]);
    const pdb = find('PodDisruptionBudget', 'gateway');
    expect(pdb.spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable).toBeLessThan(d.spec.replicas);
    expect(find('Service', 'gateway').spec.selector).toEqual(d.spec.selector.matchLabels);
  });
});
