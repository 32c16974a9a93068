/** D34's settlement of a record stream (kept means charged, unsettled means released) and D35's hourly rows. */
import {
  hourlyCharges,
  settle,
  Settler,
  type AdmissionRecord,
  type KeepRecord,
} from '../../../gateway/journal/settle';

const H = 3_600_000;
const admit = (id: string, at = 0): AdmissionRecord => ({
  t: 'a',
  id,
  account: 'acc',
  key: 'k',
  units: 1,
  amount: 100,
  at,
});
const keep = (id: string, at = 0, key = 'k'): KeepRecord => ({
  t: 'k',
  id,
  account: 'acc',
  key,
  units: 1,
  amount: 100,
  at,
});
const release = (id: string): AdmissionRecord => ({ t: 'r', id });

const cases: [string, AdmissionRecord[], boolean, string[], string[], number][] = [
  // name, stream, crashed, kept ids, released ids, repeats
  ['admit then keep', [admit('a'), keep('a')], false, ['a'], [], 0],
  ['admit then release', [admit('a'), release('a')], false, [], ['a'], 0],
  ['admit only, running', [admit('a')], false, [], [], 0],
  ['admit only, after a crash', [admit('a')], true, [], ['a'], 0],
  ['a keep whose admission was folded earlier', [keep('z')], true, ['z'], [], 0],
  ['a keep repeated', [admit('a'), keep('a'), keep('a')], false, ['a'], [], 1],
  ['a release after a keep', [admit('a'), keep('a'), release('a')], false, ['a'], [], 1],
  [
    'mixed, after a crash',
    [admit('a'), admit('b'), admit('c'), keep('b'), release('c')],
    true,
    ['b'],
    ['c', 'a'],
    0,
  ],
];

test.each(cases)('settles %s', (_name, stream, crashed, kept, released, repeats) => {
  const s = settle(stream, crashed);
  expect(s.kept.map((k) => k.id)).toEqual(kept);
  expect(s.released).toEqual(released);
  expect(s.repeats).toBe(repeats);
});

test('a settler carries admissions across batches of one replay', () => {
  const settler = new Settler();
  expect(settler.add([admit('a'), admit('b')]).kept).toEqual([]);
  expect(settler.add([keep('a')]).kept.map((k) => k.id)).toEqual(['a']);
  expect(settler.unsettled().map((a) => a.id)).toEqual(['b']);
});

test('charges sum per account, key and UTC hour; releases never reach them', () => {
  const kept = settle([
    admit('a'),
    keep('a', H - 1),
    keep('b', H),
    keep('c', H + 5),
    keep('d', H, 'k2'),
    release('e'),
  ]).kept;
  expect(hourlyCharges(kept)).toEqual([
    { account: 'acc', key: 'k', hour: 0, count: 1, units: 1, amount: 100 },
    { account: 'acc', key: 'k', hour: H, count: 2, units: 2, amount: 200 },
    { account: 'acc', key: 'k2', hour: H, count: 1, units: 1, amount: 100 },
  ]);
});
