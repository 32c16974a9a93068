/** Which settings a reload may change (gateway/config/reload.ts, runtime/server.ts) and which need a restart. */
import { compileConfig, validateConfig, type AppConfig } from '../../../runtime/config';
import { dashboardRestartChanges } from '../../../runtime/server';
import { restartOnlyChanges } from '../../../gateway/config/reload';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

const base = (): Doc => ({
  policy: 'B',
  listen: { host: '127.0.0.1', port: 8080 },
  backend: { url: 'http://127.0.0.1:1', timeoutMs: 5000 },
  store: { kind: 'embedded', path: ':memory:' },
  keyPepper: 'p'.repeat(20),
  hosts: [
    { name: 'localhost', adapter: 'native' },
    { port: 9001, adapter: 'google' },
  ],
  limits: { freePerDay: 100 },
  dashboard: {
    listen: { port: 8082 },
    publicUrl: 'http://dash.test',
    sessionSecret: 's'.repeat(40),
    productName: 'Geo',
  },
});

const compile = (doc: Doc): AppConfig => compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');

/** The restart-only fields a change of `base()` by `edit` touches. */
function changes(edit: (d: Doc) => void): string[] {
  const next = base();
  edit(next);
  const a = compile(base());
  const b = compile(next);
  return [...restartOnlyChanges(a, b), ...dashboardRestartChanges(a.dashboard, b.dashboard)];
}

test.each<[string, (d: Doc) => void]>([
  ['limits', (d) => (d.limits = { freePerDay: 5, pricePerRequest: 3 })],
  ['a new name-matched host', (d) => d.hosts.push({ name: 'maps.test', adapter: 'mapbox' })],
  ['another adapter on a host with a port', (d) => (d.hosts[1].adapter = 'here')],
  ['the backend URL', (d) => (d.backend.url = 'http://127.0.0.1:2')],
  ['a shorter backend timeout', (d) => (d.backend.timeoutMs = 1000)],
  ['trusted proxies', (d) => (d.trustProxy = ['10.0.0.0/8'])],
  [
    'the dashboard texts',
    (d) => Object.assign(d.dashboard, { productName: 'Other', footer: 'Operator Ltd' }),
  ],
])('reloadable: %s', (_what, edit) => {
  expect(changes(edit)).toEqual([]);
});

test.each<[string, (d: Doc) => void, string[]]>([
  ['the rule set', (d) => (d.policy = 'A'), ['policy']],
  ['the listener', (d) => (d.listen.port = 8070), ['listen']],
  ['the admin token', (d) => (d.admin = { token: 't'.repeat(20) }), ['admin']],
  ['the store', (d) => (d.store.path = '/tmp/other.db'), ['store']],
  ['the workers', (d) => (d.workers = 2), ['workers']],
  ['the key pepper', (d) => (d.keyPepper = 'q'.repeat(20)), ['keyPepper']],
  ['a host port', (d) => (d.hosts[1].port = 9002), ['hosts[].port']],
  ['a longer backend timeout', (d) => (d.backend.timeoutMs = 9000), ['backends.timeoutMs (longer)']],
  ['the log', (d) => (d.log = { level: 'debug' }), ['log']],
  [
    'the dashboard listener and secret',
    (d) => Object.assign(d.dashboard, { listen: { port: 1 }, sessionSecret: 'x'.repeat(40) }),
    ['dashboard.listen', 'dashboard.sessionSecret'],
  ],
  ['removing the dashboard', (d) => delete d.dashboard, ['dashboard']],
])('needs a restart: %s', (_what, edit, fields) => {
  expect(changes(edit)).toEqual(fields);
});
