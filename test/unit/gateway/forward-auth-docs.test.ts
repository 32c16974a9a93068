/** docs/forward-auth.md shows the nginx and Caddy configurations the e2e tests run (test/e2e/forward-auth/). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { caddyfile, GEOGATE_LOCATION_BLOCK, GEOGATE_SERVER_BLOCK } from '../../e2e/forward-auth/proxies';

const doc = readFileSync(join(__dirname, '../../../docs/forward-auth.md'), 'utf8');

test('the nginx server-level locations are the tested ones', () => {
  expect(doc).toContain(GEOGATE_SERVER_BLOCK);
});

test('the nginx protected location is the tested one', () => {
  expect(doc).toContain(
    `    location /v1/ {\n${GEOGATE_LOCATION_BLOCK}\n      proxy_pass http://geocoder/;\n    }`,
  );
});

test('the Caddy site is the tested one (geogate on 8083, the geocoder on 8090)', () => {
  const file = caddyfile(8080, 'http://127.0.0.1:8083', 'http://127.0.0.1:8090', 'http://127.0.0.1:8091');
  const site = file.slice(file.indexOf('http://:8080 {'));
  expect(doc).toContain(site.trimEnd());
});
