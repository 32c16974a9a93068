/**
 * The composition root's seams for the benchmarks (`createGateway({ stages, admission })`, runtime/main.ts
 * `Compose`): a replaced stage and an admission store wrapper are what the request path uses, and the bench's models
 * built on them (bench/models/ablate.ts) do what they claim: `render` hands the backend's bytes on, `admit` admits
 * without the store, `journal+fold` leaves the store's file as the store's own admissions would.
 */
import type { EmbeddedStore, Store } from '../../../gateway/store';
import { ablatedParts, ablation } from '../../../bench/models/ablate';
import { reverseRecord, startInjected, type Injected } from './injected-gateway';

const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';
let gw: Injected | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});

/** A gateway (rule set A, 2 free requests a day) composed with the bench parts of `spec` ('' for none). */
function start(spec: string): Promise<Injected> {
  const compose = (store: Store) =>
    spec === '' ? {} : ablation(ablatedParts(spec))({ config: gwConfig(), store });
  return startInjected('A', { limits: { freePerDay: 2 } }, (s) => s, compose);
}
// The models read only the hosts of the config (metrics), which the injected gateway compiles itself.
const gwConfig = () => ({ hosts: [] }) as never;

const get = (g: Injected, key?: string) =>
  fetch(g.mainUrl + PATH, key === undefined ? {} : { headers: { 'x-api-key': key } });

/** What the store's file holds for the bench's questions: balances, ledger, counters and usage (slots aside). */
function rows(g: Injected) {
  const db = (g.store as EmbeddedStore).db;
  return {
    balances: db.prepare('SELECT balance FROM accounts ORDER BY created_at').pluck().all(),
    ledger: db
      .prepare(
        'SELECT kind, count(*) AS n, sum(amount) AS sum, sum(count) AS requests FROM ledger GROUP BY kind ORDER BY kind',
      )
      .all(),
    counters: db.prepare('SELECT counter_id, used FROM counters_daily ORDER BY counter_id').all(),
    usage: db.prepare('SELECT subject, free, billed, refused FROM usage_daily ORDER BY subject').all(),
  };
}
const settled = () => new Promise((resolve) => setTimeout(resolve, 100));

test('stages.read replaces the read stage: `render` answers the backend bytes as they came', async () => {
  gw = await start('');
  const rendered = await (await get(gw)).text();
  await gw.close();
  gw = await start('render');
  const res = await get(gw);
  expect(res.status).toBe(200);
  const raw = await res.text();
  expect(raw).toBe(JSON.stringify(reverseRecord({ kind: 'reverse', lat: 48.8584, lon: 2.2945 })));
  expect(raw).not.toBe(rendered);
});

test('an admission wrapper is what the request path admits with: `admit` serves a key without credit, uncharged', async () => {
  gw = await start('');
  const acc = await gw.account(0);
  const { key } = await gw.key(acc.id);
  const codes = [];
  for (let i = 0; i < 3; i++) codes.push((await get(gw, key)).status);
  expect(codes).toEqual([200, 200, 402]); // the real store: 2 free, then no credit
  await gw.close();
  gw = await start('admit');
  const acc2 = await gw.account(0);
  const { key: key2 } = await gw.key(acc2.id);
  for (let i = 0; i < 3; i++) expect((await get(gw, key2)).status).toBe(200);
  await settled();
  expect(rows(gw).counters).toEqual([]); // the store admitted nothing
});

test('`journal+fold` leaves the balances, ledger, counters and usage the store itself writes', async () => {
  const run = async (spec: string) => {
    gw = await start(spec);
    const acc = await gw.account(100);
    const { key } = await gw.key(acc.id);
    expect((await get(gw)).status).toBe(200); // the network's first free request
    for (let i = 0; i < 4; i++) expect((await get(gw, key)).status).toBe(200);
    await settled();
    const r = rows(gw);
    await gw.close();
    gw = null;
    return r;
  };
  const own = await run('');
  expect(own.balances).toEqual([97]); // the network's 2 free requests shared, then 3 billed
  const folded = await run('journal+fold');
  // Account and key ids differ between the two stores: compare them as "key:ID", "account:ID".
  const ids = (r: object) =>
    JSON.parse(JSON.stringify(r).replace(/(key|account):[a-z]+_[0-9a-f]+/g, '$1:ID'));
  expect(ids(folded)).toEqual(ids(own));
});
