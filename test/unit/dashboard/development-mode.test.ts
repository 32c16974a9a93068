/** Development mode logs sign-in links (secrets): the config allows it only for a dashboard on this machine. */
import { dashboardConfigSchema, isLoopbackUrl } from '../../../dashboard/config';
import path from 'node:path';
import { loadConfigFile } from '../../../runtime/config';

const base = {
  listen: { port: 0 },
  sessionSecret: 'x'.repeat(32),
  development: true,
};
const SMTP = { host: 'smtp.example.com', port: 587, from: 'geogate <no-reply@example.com>' };

describe('dashboard development mode', () => {
  test.each(['http://localhost:8082', 'http://127.0.0.1:8082', 'http://127.1.2.3', 'http://[::1]:8082/'])(
    'is allowed with the loopback publicUrl %s',
    (publicUrl) => {
      expect(isLoopbackUrl(publicUrl)).toBe(true);
      expect(dashboardConfigSchema.safeParse({ ...base, publicUrl }).success).toBe(true);
    },
  );

  test.each([
    'https://dash.example.com',
    'http://10.0.0.5:8082',
    'http://127.0.0.1.example.com',
    'http://0.0.0.0',
  ])('is refused with the public publicUrl %s and no SMTP, naming development', (publicUrl) => {
    expect(isLoopbackUrl(publicUrl)).toBe(false);
    const r = dashboardConfigSchema.safeParse({ ...base, publicUrl });
    expect(r.success).toBe(false);
    const issue = r.error?.issues.find((i) => i.path.join('.') === 'development');
    expect(issue?.message).toMatch(/loopback publicUrl/);
  });

  test('is allowed with a public publicUrl when SMTP is configured (links are mailed, not logged)', () => {
    const r = dashboardConfigSchema.safeParse({ ...base, publicUrl: 'https://dash.example.com', smtp: SMTP });
    expect(r.error?.issues ?? []).toEqual([]);
    expect(r.success).toBe(true);
  });

  test('is not needed: a public dashboard without development mode loads', () => {
    const r = dashboardConfigSchema.safeParse({
      ...base,
      development: false,
      publicUrl: 'https://dash.example.com',
    });
    expect(r.success).toBe(true);
  });

  test('config/example-b.yaml (development: true) loads on its loopback default and is refused on a public URL', () => {
    const file = path.resolve(__dirname, '../../../config/example-b.yaml');
    const env = { GEOGATE_KEY_PEPPER: 'p'.repeat(32), GEOGATE_DASHBOARD_SECRET: 's'.repeat(32) };
    expect(loadConfigFile(file, env).dashboard?.development).toBe(true);
    expect(() => loadConfigFile(file, { ...env, GEOGATE_DASHBOARD_URL: 'https://dash.example.com' })).toThrow(
      /development.*loopback publicUrl/s,
    );
  });
});
