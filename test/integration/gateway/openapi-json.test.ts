/**
 * Issue 14 item 3: `GET /openapi.json` answers the customer document on the main listener's native host (before the
 * pipeline: no request line, nothing charged) and the admin document on the admin listener; drop-in hosts do not
 * serve it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { call, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const ROOT = join(__dirname, '..', '..', '..');
const yaml = (file: string): unknown => parseYaml(readFileSync(join(ROOT, file), 'utf8'));

const gw = useGatewayFixture();
const logs: string[] = [];
let h: Harness;

beforeEach(async () => {
  logs.length = 0;
  h = await gw.start({
    policy: 'A',
    backendUrl: gw.backend.url,
    logs,
    config: {
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'maps.test', adapter: 'google' },
        { name: 'ipinfo.test', port: 0, adapter: 'ipinfo' },
      ],
      limits: { freePerDay: 0 },
    },
  });
});

test('the main host answers openapi/customer.yaml as JSON, uncounted and uncharged', async () => {
  const account = await h.account({ balance: 1_000_000 });
  const { key } = await h.key(account.id);
  const r = await call(h.mainUrl, '/openapi.json', { headers: { 'x-api-key': key } });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.json).toEqual(yaml('openapi/customer.yaml'));
  expect(logs.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
  expect((await h.store.getAccount(account.id))?.balance).toBe(1_000_000);
  // A request through the pipeline is logged: the check above can fail.
  expect((await call(h.mainUrl, '/v1/ipv4?ip=8.8.8.8', { headers: { 'x-api-key': key } })).status).toBe(200);
  expect(logs.filter((l) => l.includes('"msg":"request"'))).toHaveLength(1);
});

test('the admin listener answers openapi/admin.yaml as JSON without a token', async () => {
  const r = await call(h.adminUrl, '/openapi.json');
  expect(r.status).toBe(200);
  expect(r.json).toEqual(yaml('openapi/admin.yaml'));
});

test('drop-in hosts, by name on the main listener or on their own port, do not serve it', async () => {
  const byName = await call(h.mainUrl, '/openapi.json', { headers: { host: 'maps.test' } });
  expect(byName.status).not.toBe(200);
  const own = await call(h.hostUrls['ipinfo.test'] as string, '/openapi.json');
  expect(own.status).not.toBe(200);
});
