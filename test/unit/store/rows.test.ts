/**
 * The one set of row mappers of both stores (gateway/store/rows.ts): SQLite rows carry integers as numbers,
 * PostgreSQL rows carry bigint columns as strings; both must map to the same record (D16: safe integers).
 */
import {
  newAccountRow,
  newKeyRow,
  newWhitelistRow,
  toAccount,
  toKey,
  toKeyIdentity,
  toLedger,
  toUsage,
  toWhitelist,
} from '../../../gateway/store/rows';
import { StoreConflict, type NewKey } from '../../../gateway/store/types';

const T = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const BIG = Number.MAX_SAFE_INTEGER - 7; // a balance beyond 32 bits, still exact (D16)

/** The StoreConflict reason `fn` throws (fails the test when it returns or throws anything else). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreConflict) return err.reason;
    throw err;
  }
  throw new Error('expected a StoreConflict, nothing was thrown');
}

/** The same row as SQLite (numbers) and as PostgreSQL (bigint columns as strings) return it. */
function both(row: Record<string, unknown>, bigints: readonly string[]): [string, Record<string, unknown>][] {
  const pg = { ...row };
  for (const c of bigints) if (pg[c] !== null && pg[c] !== undefined) pg[c] = String(pg[c]);
  return [
    ['sqlite (numbers)', row],
    ['postgres (bigint strings)', pg],
  ];
}

describe('toAccount', () => {
  const full = {
    id: 'acc_1',
    email: 'A@example.org',
    email_norm: 'a@example.org',
    name: 'Ann',
    password_hash: 'scrypt$x',
    status: 'active',
    balance: BIG,
    unlimited_until: T + 86_400_000,
    created_at: T,
    email_verified_at: T + 1,
    deleted_at: null,
  };
  const bare = { ...full, name: null, password_hash: null, balance: -250, unlimited_until: null };
  it.each(both(full, ['balance', 'unlimited_until', 'created_at', 'email_verified_at']))(
    'maps a full row from %s',
    (_, row) => {
      expect(toAccount(row)).toEqual({
        id: 'acc_1',
        email: 'A@example.org',
        name: 'Ann',
        passwordHash: 'scrypt$x',
        status: 'active',
        balance: BIG,
        unlimitedUntil: T + 86_400_000,
        createdAt: T,
        emailVerifiedAt: T + 1,
        deletedAt: null,
      });
    },
  );
  it.each(both(bare, ['balance', 'unlimited_until', 'created_at']))(
    'keeps nulls as null from %s',
    (_, row) => {
      const a = toAccount(row);
      expect(a).toMatchObject({ name: null, passwordHash: null, unlimitedUntil: null, balance: -250 });
      expect(typeof a.balance).toBe('number');
    },
  );
});

describe('toKey', () => {
  const key = {
    id: 'key_1',
    account_id: 'acc_1',
    prefix: 'gg_live_ab',
    label: 'laptop',
    kind: 'unlimited',
    package_until: T + 30 * 86_400_000,
    status: 'revoked',
    created_at: T,
    revoked_at: T + 5,
  };
  const expected = {
    id: 'key_1',
    accountId: 'acc_1',
    prefix: 'gg_live_ab',
    label: 'laptop',
    kind: 'unlimited',
    packageUntil: T + 30 * 86_400_000,
    status: 'revoked',
    createdAt: T,
    revokedAt: T + 5,
  };
  const bigints = ['package_until', 'created_at', 'revoked_at'];
  it.each(both(key, bigints))('maps an api_keys row from %s', (_, row) => {
    expect(toKey(row)).toEqual(expected);
  });
  it.each(both({ ...key, label: null, package_until: null, revoked_at: null }, bigints))(
    'keeps nulls as null from %s',
    (_, row) => {
      expect(toKey(row)).toMatchObject({ label: null, packageUntil: null, revokedAt: null, createdAt: T });
    },
  );
  it.each(both(key, bigints))('maps the k_ columns of a key joined with its account from %s', (_, row) => {
    const account = {
      id: 'acc_1',
      email: 'a@example.org',
      name: null,
      password_hash: null,
      status: 'suspended',
      balance: typeof row.created_at === 'string' ? '900' : 900,
      unlimited_until: null,
      created_at: row.created_at,
    };
    const joined: Record<string, unknown> = { ...account };
    for (const [c, v] of Object.entries(row)) joined[`k_${c}`] = v;
    // The account's own id and status must not leak into the key, nor the key's into the account.
    expect(toKey(joined, 'k_')).toEqual(expected);
    expect(toKey({ ...joined, k_id: 'key_2' }, 'k_').id).toBe('key_2');
    expect(toKeyIdentity(joined)).toEqual({
      key: expected,
      account: {
        id: 'acc_1',
        email: 'a@example.org',
        name: null,
        passwordHash: null,
        status: 'suspended',
        balance: 900,
        unlimitedUntil: null,
        createdAt: T,
        emailVerifiedAt: null,
        deletedAt: null,
      },
    });
  });
});

describe('toWhitelist, toLedger, toUsage', () => {
  it.each(
    both({ id: 'wl_1', account_id: 'acc_1', cidr: '192.0.2.0/24', family: 4, created_at: T }, ['created_at']),
  )('maps a whitelist row from %s (range columns are not part of the entry)', (_, row) => {
    expect(toWhitelist(row)).toEqual({ id: 'wl_1', accountId: 'acc_1', cidr: '192.0.2.0/24', createdAt: T });
  });
  const ledger = {
    id: 'led_1',
    account_id: 'acc_1',
    amount: -BIG,
    kind: 'package',
    key_id: 'key_1',
    ref: 'order-7',
    created_at: T,
    seq: 12,
  };
  it.each(both(ledger, ['amount', 'created_at', 'seq']))('maps a ledger row from %s', (_, row) => {
    expect(toLedger(row)).toEqual({
      id: 'led_1',
      accountId: 'acc_1',
      amount: -BIG,
      kind: 'package',
      keyId: 'key_1',
      ref: 'order-7',
      createdAt: T,
      count: null,
      hourStart: null,
    });
  });
  it.each(both({ ...ledger, amount: 500, kind: 'topup', key_id: null, ref: null }, ['amount', 'created_at']))(
    'keeps a ledger row without key and ref as nulls from %s',
    (_, row) => {
      expect(toLedger(row)).toMatchObject({ amount: 500, keyId: null, ref: null });
    },
  );
  const hourly = { ...ledger, kind: 'charge', ref: `charge ${T} key_1`, count: 2 ** 40, hour_start: T };
  it.each(both(hourly, ['amount', 'created_at', 'count', 'hour_start']))(
    'maps an hourly charge row (D35) with its count and hour from %s',
    (_, row) => {
      expect(toLedger(row)).toMatchObject({ kind: 'charge', count: 2 ** 40, hourStart: T });
    },
  );
  it.each([
    ['a per-request charge recorded before D35 as one request', 'adm_1', 1],
    ['an hourly charge whose count a rollback of 009 dropped as unknown', `charge ${T} key_1`, null],
  ])('reads %s', (_, ref, count) => {
    expect(toLedger({ ...ledger, kind: 'charge', ref, count: null, hour_start: null })).toMatchObject({
      count,
      hourStart: null,
    });
  });
  it.each(
    both({ day: '2026-01-01', subject: 'key:key_1', free: 3, billed: 2 ** 40, refused: 0 }, [
      'free',
      'billed',
      'refused',
    ]),
  )('maps a usage_daily row from %s', (_, row) => {
    expect(toUsage(row)).toEqual({
      day: '2026-01-01',
      subject: 'key:key_1',
      free: 3,
      billed: 2 ** 40,
      refused: 0,
    });
  });
});

describe('newKeyRow', () => {
  const input: NewKey = { accountId: 'acc_1', hash: 'ab'.repeat(32), prefix: 'gg_live_ab', kind: 'payg' };

  it('builds an active row with a new id, nulls for what is not given, and maps back to the key', () => {
    const a = newKeyRow(input, T);
    const b = newKeyRow(input, T);
    expect(a).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{20}$/),
      account_id: 'acc_1',
      hash: 'ab'.repeat(32),
      prefix: 'gg_live_ab',
      label: null,
      kind: 'payg',
      package_until: null,
      status: 'active',
      created_at: T,
      revoked_at: null,
      test: false,
      expires_at: null,
    });
    expect(b.id).not.toBe(a.id);
    expect(toKey(a)).toEqual({
      id: a.id,
      accountId: 'acc_1',
      prefix: 'gg_live_ab',
      label: null,
      kind: 'payg',
      packageUntil: null,
      status: 'active',
      createdAt: T,
      revokedAt: null,
    });
    expect(toKey(a)).not.toHaveProperty('hash'); // D14: the hash stays in the row
  });

  it('keeps a label and a package end', () => {
    const row = newKeyRow({ ...input, kind: 'unlimited', label: 'ci', packageUntil: T + 1 }, T);
    expect(row).toMatchObject({ kind: 'unlimited', label: 'ci', package_until: T + 1 });
  });

  it.each([
    ['an empty hash', { ...input, hash: '' }],
    ['a missing hash', { ...input, hash: undefined as unknown as string }],
    ['an unknown kind', { ...input, kind: 'forever' as NewKey['kind'] }],
  ])('refuses %s with invalid_input', (_, bad) => {
    expect(refusal(() => newKeyRow(bad, T))).toBe('invalid_input');
  });
});

describe('newAccountRow and newWhitelistRow', () => {
  it('trims the e-mail, stores its normal form, starts active with balance 0', () => {
    const row = newAccountRow({ email: '  Ann@Example.ORG ' }, T);
    expect(row).toMatchObject({
      id: expect.stringMatching(/^acc_/),
      email: 'Ann@Example.ORG',
      email_norm: 'ann@example.org',
      name: null,
      password_hash: null,
      status: 'active',
      balance: 0,
      unlimited_until: null,
      created_at: T,
    });
  });

  it.each([[''], ['   '], ['a'.repeat(321)]])('refuses the e-mail %j with invalid_input', (email) => {
    expect(refusal(() => newAccountRow({ email }, T))).toBe('invalid_input');
  });

  it('writes the parsed block as family and first/last address (D18)', () => {
    const row = newWhitelistRow(
      'acc_1',
      { cidr: '192.0.2.0/24', family: 4, start: 'c0000200', end: 'c00002ff' },
      T,
    );
    expect(row).toEqual({
      id: expect.stringMatching(/^wl_/),
      account_id: 'acc_1',
      cidr: '192.0.2.0/24',
      family: 4,
      range_start: 'c0000200',
      range_end: 'c00002ff',
      created_at: T,
    });
  });
});
