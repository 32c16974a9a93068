/**
 * Issue 14 item 7: every line the gateway process writes to stdout is a JSON object (pino), start-up included; with
 * `log.format: pretty` the lines are for a person. Needs `npm run build:ts` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../helpers/gateway-harness';
import { startBackendProc, startGatewayProc, type RunningProcess } from '../../helpers/gateway-processes';

const MAIN = join(__dirname, '../../../dist/gateway/main.js');
let dir: string;
let backend: RunningProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-logs-'));
  backend = await startBackendProc();
}, 60_000);
afterAll(async () => {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A config file with the given log section. */
function configFile(name: string, log: string): string {
  const file = join(dir, name);
  const lines = [
    'policy: A',
    'listen: { host: 127.0.0.1, port: 0 }',
    'admin: { listen: { host: 127.0.0.1, port: 0 } }',
    `backend: { url: "${backend.url}" }`,
    `store: { kind: embedded, path: "${join(dir, `${name}.db`)}" }`,
    `keyPepper: "${'p'.repeat(20)}"`,
    'hosts: [{ name: localhost, adapter: native }]',
    log,
  ];
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** No token in the config or environment: one is generated into a file of the test's own (issue 13 item 6). */
const ENV: Record<string, string> = { GEOGATE_ADMIN_TOKEN: '' };
beforeAll(() => {
  ENV['GEOGATE_ADMIN_TOKEN_FILE'] = join(dir, 'admin-token');
});

test('json (default): start-up and request lines are all JSON objects with level, time, svc and msg', async () => {
  const gw = await startGatewayProc(configFile('json.yaml', 'log: { level: info }'), 3, ENV);
  try {
    expect((await call(gw.url, '/v1/ipv4?ip=8.8.8.8')).status).toBe(200);
    expect((await call(gw.urls[2] as string, '/healthz')).status).toBe(200);
  } finally {
    await gw.stop();
  }
  const lines = gw
    .output()
    .split('\n')
    .filter((l) => l !== '');
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(parsed.length).toBeGreaterThanOrEqual(4);
  for (const p of parsed)
    expect(p).toEqual(
      expect.objectContaining({
        level: expect.any(Number),
        time: expect.any(Number),
        svc: 'gateway',
        msg: expect.any(String),
      }),
    );
  const msgs = parsed.map((p) => p.msg as string);
  // The generated token is never printed: the start-up line names the file it is kept in.
  expect(msgs).toContain(`gateway: admin token in ${join(dir, 'admin-token')} (mode 0600)`);
  expect(parsed.find((p) => /listening on/.test(p.msg as string))?.url).toBe(gw.url);
  expect(msgs.filter((m) => /admin token/.test(m))).toHaveLength(1);
}, 60_000);

test('level silent still prints the start-up lines, as JSON', async () => {
  const gw = await startGatewayProc(configFile('silent.yaml', 'log: { level: silent }'), 3, ENV);
  await gw.stop();
  const lines = gw
    .output()
    .split('\n')
    .filter((l) => l !== '');
  expect(
    lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => / on http:/.test(m)),
  ).toHaveLength(3);
}, 60_000);

test('pretty: lines for a terminal, not JSON, still naming the URLs', async () => {
  const gw = await startGatewayProc(
    configFile('pretty.yaml', 'log: { level: info, format: pretty }'),
    3,
    ENV,
  );
  await gw.stop();
  const lines = gw
    .output()
    .split('\n')
    .filter((l) => l !== '');
  expect(
    lines.some((l) =>
      /INFO.*gateway: rule set A, listening on http:\/\/127\.0\.0\.1:\d+ \(main host\)/.test(l),
    ),
  ).toBe(true);
  expect(lines.every((l) => !l.startsWith('{'))).toBe(true);
}, 60_000);

test('a refused config: plain lines on stderr for the person, one JSON fatal line on stdout for the log', () => {
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, 'policy: C\n');
  const r = spawnSync(process.execPath, [MAIN, '--config', file], { encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain(`${file}: policy: required: "A" or "B"`);
  const line = JSON.parse(r.stdout.trim()) as { level: number; msg: string; problems?: string[] };
  expect(line.level).toBe(60);
  expect(line.problems).toContain(
    `${file}: policy: required: "A" or "B" (there is no default: choose the rule set)`,
  );
});
