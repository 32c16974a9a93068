/**
 * Issue 14 item 6: the image's health check follows the configured admin port; config/docker.yaml names every
 * missing variable at once; config/docker-api.yaml starts without Stripe (and without the dashboard).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPath, healthUrl, healthy } from '../../../gateway/cli/healthcheck';
import { compileConfig, loadConfigFile } from '../../../runtime/config';

const ROOT = join(__dirname, '..', '..', '..');

describe('the Docker health check', () => {
  let dir: string;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'geogate-health-'));
    server = http.createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? 200 : 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A config whose admin listener is on `adminPort`. */
  const config = (adminPort: number): string => {
    const file = join(dir, `c${adminPort}.yaml`);
    const text = readFileSync(join(ROOT, 'config', 'docker-api.yaml'), 'utf8').replace(
      /port: 8081/,
      `port: ${adminPort}`,
    );
    writeFileSync(file, text);
    return file;
  };
  const ENV = { GEOGATE_KEY_PEPPER: 'pepper-for-the-health-test' };

  it('asks the admin port the config names: healthy there, unhealthy when the config names another port', async () => {
    expect(await healthy(config(port), ENV)).toBe(true);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await healthy(config(freePort), ENV)).toBe(false);
  });

  it('finds the config: GEOGATE_CONFIG, else the main process --config, else config/docker.yaml', () => {
    expect(configPath({ GEOGATE_CONFIG: '/etc/g.yaml' }, 'node\0main.js\0--config\0x.yaml\0')).toBe(
      '/etc/g.yaml',
    );
    expect(configPath({}, 'node\0dist/gateway/main.js\0--config\0config/docker-api.yaml\0')).toBe(
      'config/docker-api.yaml',
    );
    expect(configPath({}, 'node\0main.js\0--config=/srv/g.yaml\0')).toBe('/srv/g.yaml');
    expect(configPath({}, null)).toBe('config/docker.yaml');
  });

  it('reaches a wildcard admin address on loopback', () => {
    expect(healthUrl({ host: '0.0.0.0', port: 9181 })).toBe('http://127.0.0.1:9181/healthz');
    expect(healthUrl({ host: '::', port: 9181 })).toBe('http://[::1]:9181/healthz');
    expect(healthUrl({ host: '127.0.0.1', port: 8081 })).toBe('http://127.0.0.1:8081/healthz');
  });

  it('the Dockerfile runs this health check instead of a fixed port', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const gateway = dockerfile.slice(dockerfile.indexOf('FROM runtime AS gateway'));
    expect(gateway).toContain('CMD ["node", "dist/gateway/cli/healthcheck.js"]');
    expect(gateway).not.toMatch(/HEALTHCHECK[^\n]*\n[^\n]*8081/);
  });
});

describe('Docker configs and the environment', () => {
  // Issue 14 item 6: without Stripe the required variables are two (this test named four before).
  it('config/docker.yaml names both missing variables in one pass', () => {
    const file = join(ROOT, 'config', 'docker.yaml');
    let message = '';
    try {
      loadConfigFile(file, {});
    } catch (e) {
      message = (e as Error).message;
    }
    for (const name of ['GEOGATE_KEY_PEPPER', 'GEOGATE_DASHBOARD_SECRET']) {
      expect(message).toContain(`environment variable ${name} is not set`);
    }
    expect(message).not.toContain('STRIPE');
    expect(message.split('\n')).toHaveLength(2);
  });

  it('config/docker-api.yaml starts with the key pepper alone: no Stripe, no dashboard, admin on loopback', () => {
    const file = join(ROOT, 'config', 'docker-api.yaml');
    const c = compileConfig(
      loadConfigFile(file, { GEOGATE_KEY_PEPPER: 'pepper-for-the-docker-test-01' }),
      file,
    );
    expect(c.dashboard).toBeNull();
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(c.admin.listen).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(c.store).toEqual({ kind: 'embedded', path: '/app/data/geogate.db' });
    expect(() => loadConfigFile(file, {})).toThrow(
      /^.*keyPepper: environment variable GEOGATE_KEY_PEPPER is not set$/,
    );
  });
});
