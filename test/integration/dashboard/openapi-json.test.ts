/** Issue 14 item 3: the dashboard answers `GET /openapi.json` with its own dashboard/openapi.yaml, parsed once. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Client, useDashboards } from './fixture';

const dash = useDashboards();

test('GET /openapi.json is dashboard/openapi.yaml as JSON, without a session', async () => {
  const h = await dash('A');
  const r = await new Client(h.app).get('/openapi.json');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const yaml = parseYaml(
    readFileSync(join(__dirname, '..', '..', '..', 'dashboard', 'openapi.yaml'), 'utf8'),
  );
  expect(JSON.parse(r.text)).toEqual(yaml);
});
