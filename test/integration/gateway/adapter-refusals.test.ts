/**
 * Through the real pipeline: a refusal from an adapter's `parse` is rendered with the state it returned (D24), so a
 * Nominatim format=xml client gets an XML error and a HERE 6.2 client the legacy error shape.
 */
import { call } from '../../helpers/gateway-harness';
import { useGateway } from './fixture';

// Refusals happen before the backend is asked: an unused URL is enough.
const h = useGateway(() => ({
  policy: 'A',
  backendUrl: 'http://127.0.0.1:9',
  config: {
    hosts: [
      { name: 'localhost', adapter: 'native' },
      { name: 'nominatim.localhost', adapter: 'nominatim' },
      { name: 'here.localhost', adapter: 'here' },
    ],
  },
}));

const on = (host: string, path: string) => call(h.mainUrl, path, { headers: { host } });

test.each([
  ['/reverse?format=xml&lat=abc&lon=2.29'],
  ['/reverse.php?lat=91&lon=2.29'], // xml is the default format
])('nominatim %s → 400 XML error', async (path) => {
  const r = await on('nominatim.localhost', path);
  expect(r.status).toBe(400);
  expect(r.headers['content-type']).toMatch(/xml/);
  expect(r.text).toMatch(/^<\?xml[\s\S]*<error>[\s\S]*<code>400<\/code>[\s\S]*<\/error>/);
  expect(r.headers['access-control-allow-origin']).toBe('*');
});

test('nominatim format=json with a bad lat stays JSON', async () => {
  const r = await on('nominatim.localhost', '/reverse?format=json&lat=abc&lon=2.29');
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ error: { code: 400 } });
});

test('here 6.2 with a bad pos → 400 legacy ApplicationError', async () => {
  const r = await on('here.localhost', '/6.2/reversegeocode.json?pos=abc,2.29&mode=retrieveAddresses');
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ _type: 'ns2:Error', type: 'ApplicationError', subtype: 'InvalidInputData' });
});

test('here v7 with a bad at → 400 v7 error', async () => {
  const r = await on('here.localhost', '/v1/revgeocode?at=abc,2.29');
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ status: 400, title: 'Illegal input for parameter' });
});
