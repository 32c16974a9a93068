/** Bad input to the library's entry: a clear error thrown at creation naming the field, never a served 500. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, createGeogate, GeogateArgumentError, type Geogate } from '../../../runtime/library';
import { useTempDir } from '../../helpers/fixture';
import { call } from '../../helpers/gateway-harness';

const dir = useTempDir('geogate-lib-err-');
const config = (extra: Record<string, unknown> = {}) => ({
  policy: 'A',
  backend: { url: 'http://127.0.0.1:9' },
  store: { kind: 'embedded', path: `${dir.path}/geogate.db` },
  keyPepper: 'library-pepper-0123456789',
  hosts: [{ name: 'localhost', adapter: 'native' }],
  log: { level: 'silent' },
  ...extra,
});

describe('createGeogate refuses a config that fails validation, naming the field', () => {
  test('an unknown adapter and an unknown key', async () => {
    const bad = config({ hosts: [{ name: 'localhost', adapter: 'nope' }], limts: {} });
    const err = await createGeogate({ config: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^config: hosts\[0\]\.adapter: /m);
    expect((err as Error).message).toMatch(/^config: limts: unknown key$/m);
  });

  test('neither or both of config and configFile', async () => {
    await expect(createGeogate({})).rejects.toMatchObject({ name: 'GeogateArgumentError', field: 'config' });
    await expect(createGeogate({ config: config(), configFile: 'x.yaml' })).rejects.toBeInstanceOf(
      GeogateArgumentError,
    );
  });
});

describe('a gate refuses bad arguments with the field named', () => {
  let gate: Geogate;
  beforeAll(async () => {
    gate = await createGeogate({ config: config() });
  });
  afterAll(() => gate.close());

  test('an unknown host at mount time lists the configured ones', () => {
    expect(() => gate.middleware({ host: 'maps.example' })).toThrow(
      'geogate: host: unknown host "maps.example"; the config\'s hosts are: localhost',
    );
    expect(() => gate.fastify({ host: 'maps.example' })).toThrow(GeogateArgumentError);
  });

  test('admit: units that are not a whole number ≥ 0, and a settle outcome that is neither a status nor a D11 kind', async () => {
    const server = http.createServer(async (req, res) => {
      try {
        const units = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('units'));
        const d = await gate.admit(req, { units });
        d.reply(res);
        await d.settle('maybe' as never);
        res.end('settled');
      } catch (err) {
        res.writeHead(400).end(`${(err as GeogateArgumentError).field}: ${(err as Error).message}`);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await call(base, '/?units=-1')).text).toBe(
        'units: geogate: units: -1 is not a whole number of units (0 or more)',
      );
      expect((await call(base, '/?units=1')).text).toMatch(
        /^outcome: geogate: outcome: "maybe" is neither a status nor/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
