/**
 * config/docker.yaml (the gateway image's default config) validates with the gateway's own loader given its
 * environment: rule set A by default (D1 through GEOGATE_POLICY), main and dashboard listeners on 0.0.0.0, the admin
 * API on loopback unless GEOGATE_ADMIN_HOST says otherwise, the store under /app/data, secrets only from the
 * environment. And the Dockerfile's gateway target runs it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileConfig, ConfigError, loadConfigFile } from '../../../runtime/config';

const ROOT = join(__dirname, '..', '..', '..');
const FILE = join(ROOT, 'config', 'docker.yaml');

/** The required variables only (GEOGATE_DATA_DIR unset: the file's default is the image's /app/data). */
const ENV = {
  GEOGATE_KEY_PEPPER: 'pepper-for-the-docker-test-0001',
  GEOGATE_DASHBOARD_SECRET: 'dashboard-secret-for-the-docker-test-000000001',
};

const load = (env: NodeJS.ProcessEnv) => compileConfig(loadConfigFile(FILE, env), FILE);

describe('config/docker.yaml', () => {
  it('validates with the required variables: rule set A, 0.0.0.0 except admin, store in /app/data', () => {
    const c = load(ENV);
    expect(c.rules.name).toBe('A');
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(c.admin.listen).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(c.admin.token).toBeNull(); // from GEOGATE_ADMIN_TOKEN or generated, never in the file
    expect(c.dashboard?.listen).toEqual({ host: '0.0.0.0', port: 8082 });
    expect(c.store).toEqual({ kind: 'embedded', path: '/app/data/geogate.db' });
    expect(c.keyPepper).toBe(ENV.GEOGATE_KEY_PEPPER);
    expect(c.dashboard?.sessionSecret).toBe(ENV.GEOGATE_DASHBOARD_SECRET);
    expect(c.backend.url.href).toBe('http://backend:8090/');
    expect(c.onStoreFailure).toBe('closed');
  });

  // Issue 14 item 6 changed this: docker.yaml has no payments section (top-ups disabled), so it starts without the
  // Stripe variables; it still never uses the "test" provider.
  it('never uses the "test" payment provider (it would hand out credit on a reachable listener)', () => {
    const c = load(ENV);
    expect(c.dashboard?.payments?.provider).not.toBe('test');
    expect(c.dashboard?.payments).toBeUndefined();
  });

  it('holds no secret itself: every secret field is a ${VAR} reference', () => {
    const text = readFileSync(FILE, 'utf8');
    for (const field of ['keyPepper', 'sessionSecret', 'secretKey', 'webhookSecret']) {
      expect(text).toMatch(new RegExp(`${field}: '\\$\\{GEOGATE_[A-Z_]+\\}'`));
    }
  });

  it.each(Object.keys(ENV))('refuses to start without %s', (name) => {
    const env: NodeJS.ProcessEnv = { ...ENV };
    delete env[name];
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(`environment variable ${name} is not set`);
  });

  it('the optional variables change the rule set, the backend, the admin address and the public URL', () => {
    const c = load({
      ...ENV,
      GEOGATE_POLICY: 'B',
      GEOGATE_BACKEND_URL: 'http://geo-backend:9000',
      GEOGATE_ADMIN_HOST: '0.0.0.0',
      GEOGATE_DASHBOARD_URL: 'https://dashboard.example.com',
      GEOGATE_DATA_DIR: '/srv/geogate',
    });
    expect(c.rules.name).toBe('B');
    expect(c.backend.url.href).toBe('http://geo-backend:9000/');
    expect(c.admin.listen.host).toBe('0.0.0.0');
    expect(c.dashboard?.publicUrl).toBe('https://dashboard.example.com');
    expect(c.store).toEqual({ kind: 'embedded', path: '/srv/geogate/geogate.db' });
  });

  it('refuses a rule set other than A or B (D1)', () => {
    expect(() => load({ ...ENV, GEOGATE_POLICY: 'C' })).toThrow(/policy/);
  });
});

describe('Dockerfile gateway target', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const gatewayStage = dockerfile.slice(dockerfile.indexOf('FROM runtime AS gateway'));

  it('runs config/docker.yaml as the unprivileged user', () => {
    expect(gatewayStage).toContain('CMD ["node", "dist/gateway/main.js", "--config", "config/docker.yaml"]');
    const users = [...gatewayStage.matchAll(/^USER (\S+)/gm)].map((m) => m[1]);
    expect(users[users.length - 1]).toBe('node');
  });

  it('copies the files the dashboard reads from the source tree at run time', () => {
    // The gateway's stage (the backend's image has no dashboard).
    const runtime = dockerfile.slice(dockerfile.indexOf('AS gateway\n'));
    expect(runtime).toMatch(/^COPY dashboard\/static \.\/dashboard\/static$/m);
    expect(runtime).toMatch(/^COPY dashboard\/openapi\.yaml \.\/dashboard\/openapi\.yaml$/m);
  });
});
