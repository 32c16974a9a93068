/** Fault classification owned by the store contract (issue 9 item 4, issue 13 items 2 and 4). */
import { ReplyError } from 'ioredis';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import { sqliteFault } from '../../../gateway/store/embedded/faults';
import { isStoreUnavailable, StoreUnavailableError } from '../../../gateway/store/faults';
import { pgFault, redisFault } from '../../../gateway/store/shared/errors';

const reply = (message: string): Error => new ReplyError(message);
const pgError = (message: string, code?: string): Error =>
  Object.assign(new Error(message), code === undefined ? {} : { code });

describe('redisFault: every way Redis cannot serve now is unavailable', () => {
  it.each([
    ['OOM under noeviction', "OOM command not allowed when used memory > 'maxmemory'."],
    [
      'OOM inside a script',
      "ERR Error running script (call to f_1): @user_script:12: -OOM command not allowed when used memory > 'maxmemory'.",
    ],
    ['a read-only replica', "READONLY You can't write against a read only replica."],
    ['cluster down', 'CLUSTERDOWN The cluster is down'],
    ['resharding', 'TRYAGAIN Multiple keys request during rehashing of slot'],
    ['loading', 'LOADING Redis is loading the dataset in memory'],
    ['a long script', 'BUSY Redis is busy running a script.'],
    ['too few replicas', 'NOREPLICAS Not enough good replicas to write.'],
    [
      'a failed RDB save',
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist',
    ],
  ])('%s → StoreUnavailableError', (_name, message) => {
    const fault = redisFault(reply(message));
    expect(fault).toBeInstanceOf(StoreUnavailableError);
    expect(isStoreUnavailable(fault)).toBe(true);
  });

  it.each([
    ['a command timeout', new Error('Command timed out')],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a closed connection', new Error('Connection is closed.')],
  ])('%s (not a reply) → StoreUnavailableError', (_name, err) => {
    expect(redisFault(err)).toBeInstanceOf(StoreUnavailableError);
  });

  it.each([
    ['a wrong type', 'WRONGTYPE Operation against a key holding the wrong kind of value'],
    ['a script bug', 'ERR Error running script (call to f_1): @user_script:3: attempt to index a nil value'],
    ['BUSYGROUP (not BUSY)', 'BUSYGROUP Consumer Group name already exists'],
  ])('%s → a bug, passed through', (_name, message) => {
    const err = reply(message);
    expect(redisFault(err)).toBe(err);
    expect(isStoreUnavailable(err)).toBe(false);
  });
});

describe('pgFault: every way PostgreSQL cannot serve now is unavailable', () => {
  it.each([
    ['connect timeout ("timeout expired")', pgError('timeout expired')],
    ['client query timeout', pgError('Query read timeout')],
    ['statement_timeout', pgError('canceling statement due to statement timeout', '57014')],
    ['pool acquire timeout', pgError('Knex: Timeout acquiring a connection. The pool is probably full.')],
    ['connection ended', pgError('Connection terminated unexpectedly')],
    ['refused', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', pgError('read ECONNRESET', 'ECONNRESET')],
    ['admin shutdown', pgError('terminating connection due to administrator command', '57P01')],
    ['too many connections', pgError('sorry, too many clients already', '53300')],
    ['a broken connection', pgError('Client has encountered a connection error and is not queryable')],
  ])('%s → StoreUnavailableError', (_name, err) => {
    const fault = pgFault(err);
    expect(fault).toBeInstanceOf(StoreUnavailableError);
    expect((fault as StoreUnavailableError).backend).toBe('postgres');
  });

  it.each([
    ['a unique violation', pgError('duplicate key value violates unique constraint', '23505')],
    ['bad SQL', pgError('syntax error at or near "SELEC"', '42601')],
    ['bad input', pgError('invalid byte sequence for encoding "UTF8": 0x00', '22021')],
  ])('%s → a bug or conflict, passed through', (_name, err) => {
    expect(pgFault(err)).toBe(err);
  });
});

describe('the Store interface owns readiness and classification', () => {
  it('the embedded store reports { sqlite } and classifies its own faults', async () => {
    const store = new EmbeddedStore(':memory:');
    await store.migrate();
    expect(await store.readiness()).toEqual({ sqlite: true });
    expect(isStoreUnavailable(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))).toBe(true);
    expect(isStoreUnavailable(new TypeError('a bug'))).toBe(false);
    await store.close();
    expect(await store.readiness()).toEqual({ sqlite: false });
  });
});

describe('each store wraps its own driver faults: the embedded store', () => {
  const sqlite = (code: string): Error => Object.assign(new Error(`sqlite said ${code}`), { code });

  it('sqliteFault wraps an unavailable database into StoreUnavailableError and passes bugs through', () => {
    const busy = sqlite('SQLITE_BUSY');
    const wrapped = sqliteFault(busy);
    expect(wrapped).toBeInstanceOf(StoreUnavailableError);
    expect(wrapped).toMatchObject({ backend: 'sqlite', cause: busy });
    const constraint = sqlite('SQLITE_CONSTRAINT_UNIQUE');
    expect(sqliteFault(constraint)).toBe(constraint);
    const already = new StoreUnavailableError('sqlite', 'x');
    expect(sqliteFault(already)).toBe(already);
  });

  it('a closed database fails every port with StoreUnavailableError (admission, management, marks)', async () => {
    const store = new EmbeddedStore(':memory:');
    await store.migrate();
    store.db.close();
    const calls: [string, () => Promise<unknown>][] = [
      ['findKeyByHash', () => store.findKeyByHash('h')],
      ['recordRefusal', () => store.recordRefusal(['key:k'], '2026-11-27')],
      [
        'admit',
        () =>
          store.admit({
            id: 'adm_1',
            now: 1,
            day: '1970-01-01',
            slots: [],
            free: [],
            overflow: { kind: 'free' },
            usage: [],
            keyId: null,
          }),
      ],
      ['getAccount', () => store.getAccount('acc_1')],
      ['listKeys', () => store.listKeys('acc_1')],
      ['ledger', () => store.ledger('acc_1', 10)],
      ['notificationSettings', () => store.notificationSettings('acc_1')],
      ['consumeOnce', () => store.consumeOnce('m', 2, 1)],
    ];
    for (const [name, call] of calls) {
      const err = await call().then(
        () => new Error(`${name} answered`),
        (e: unknown) => e,
      );
      expect([name, err]).toEqual([name, expect.any(StoreUnavailableError)]);
      expect((err as StoreUnavailableError).backend).toBe('sqlite');
    }
    await store.close();
  });
});
