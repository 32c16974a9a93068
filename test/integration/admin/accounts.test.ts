import { verifyPassword } from '../../../gateway/admin/password';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, newAccount, useAdmin } from './fixture';

describe('admin accounts, rule set A (name and password at sign-up)', () => {
  const h = useAdmin(RULE_SET_A);

  it('creates an account: 201, Location, pay-as-you-go plan, zero EUR balance, no password hash in the body', async () => {
    const res = await h.call('post', '/admin/accounts', {
      email: 'Ada@Example.com',
      name: ' Ada Lovelace ',
      password: 'correct horse battery',
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/admin/accounts/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^acc_/),
      email: 'Ada@Example.com',
      name: 'Ada Lovelace',
      status: 'active',
      balance: '0.0000',
      createdAt: '2026-01-31T10:00:00.000Z',
      emailVerifiedAt: '2026-01-31T10:00:00.000Z',
      deletedAt: null,
      plan: { plan: 'payg', packages: [] },
      keys: [],
    });
    expect(res.text).not.toMatch(/scrypt|password/i);
  });

  it('stores the password as an scrypt hash that verifies', async () => {
    const acc = await newAccount(h);
    const stored = await h.store.getAccount(acc.id);
    expect(stored?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    await expect(verifyPassword('correct horse battery', stored?.passwordHash ?? '')).resolves.toBe(true);
  });

  it.each([
    ['email', { name: 'Ada', password: 'correct horse battery' }],
    ['email', { email: 'not-an-address', name: 'Ada', password: 'correct horse battery' }],
    ['email', { email: 42, name: 'Ada', password: 'correct horse battery' }],
    ['name', { email: 'a@example.com', password: 'correct horse battery' }],
    ['name', { email: 'a@example.com', name: '', password: 'correct horse battery' }],
    ['password', { email: 'a@example.com', name: 'Ada' }],
    ['password', { email: 'a@example.com', name: 'Ada', password: 'short pw' }],
    ['company', { email: 'a@example.com', name: 'Ada', password: 'correct horse battery', company: 'X' }],
  ])('refuses a sign-up with a bad %s: 400 naming it, nothing created', async (field, body) => {
    expectProblem(await h.call('post', '/admin/accounts', body), 400, 'invalid_parameter', field);
    expect(await h.store.findAccountByEmail('a@example.com')).toBeNull();
  });

  it('refuses a second account with the same e-mail (any case) with 409 email_taken', async () => {
    await newAccount(h, 'dup@example.com');
    const res = await h.call('post', '/admin/accounts', {
      email: 'DUP@example.com',
      name: 'B',
      password: 'another long pw',
    });
    expectProblem(res, 409, 'email_taken', 'email');
  });

  it('looks an account up by e-mail, 404 when unknown, 400 without the parameter', async () => {
    const acc = await newAccount(h, 'find.me@example.com');
    const res = await h.call('get', '/admin/accounts?email=FIND.ME@example.com');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(acc.id);
    expectProblem(await h.call('get', '/admin/accounts?email=nobody@example.com'), 404, 'not_found');
    expectProblem(await h.call('get', '/admin/accounts'), 400, 'invalid_parameter', 'email');
    expectProblem(await h.call('get', '/admin/accounts?email=bad'), 400, 'invalid_parameter', 'email');
    expectProblem(
      await h.call('get', '/admin/accounts?mail=a@example.com'),
      400,
      'invalid_parameter',
      'mail',
    );
  });

  it('answers 404 for an unknown account on every account endpoint', async () => {
    expectProblem(await h.call('get', '/admin/accounts/acc_missing'), 404, 'not_found');
    expectProblem(await h.call('post', '/admin/accounts/acc_missing/suspend'), 404, 'not_found');
    expectProblem(await h.call('post', '/admin/accounts/acc_missing/reinstate'), 404, 'not_found');
    expectProblem(
      await h.call('post', '/admin/accounts/acc_missing/credit', { amount: '1' }),
      404,
      'not_found',
    );
    expectProblem(await h.call('post', '/admin/accounts/acc_missing/keys', {}), 404, 'not_found');
    expectProblem(await h.call('post', '/admin/accounts/acc_missing/packages'), 404, 'not_found');
    expectProblem(await h.call('get', '/admin/accounts/acc_missing/usage'), 404, 'not_found');
    expectProblem(await h.call('get', '/admin/accounts/acc_missing/ledger'), 404, 'not_found');
  });

  it('suspends and reinstates an account (D8), idempotently', async () => {
    const acc = await newAccount(h);
    const suspended = await h.call('post', `/admin/accounts/${acc.id}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe('suspended');
    expect((await h.call('post', `/admin/accounts/${acc.id}/suspend`)).body.status).toBe('suspended');
    expect((await h.store.getAccount(acc.id))?.status).toBe('suspended');
    const back = await h.call('post', `/admin/accounts/${acc.id}/reinstate`);
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('active');
    expect((await h.store.getAccount(acc.id))?.status).toBe('active');
  });

  it('refuses a body on suspend naming the unknown field', async () => {
    const acc = await newAccount(h);
    expectProblem(
      await h.call('post', `/admin/accounts/${acc.id}/suspend`, { reason: 'x' }),
      400,
      'invalid_parameter',
      'reason',
    );
  });
});

describe('admin accounts, rule set B (only an e-mail at sign-up)', () => {
  const h = useAdmin(RULE_SET_B);

  it('creates an account from an e-mail alone: credits plan, whole-credit balance, whitelist and addresses', async () => {
    const res = await h.call('post', '/admin/accounts', { email: 'ops@example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^acc_/),
      email: 'ops@example.com',
      name: null,
      status: 'active',
      balance: 0,
      createdAt: '2026-01-31T10:00:00.000Z',
      emailVerifiedAt: '2026-01-31T10:00:00.000Z',
      deletedAt: null,
      plan: { plan: 'credits' },
      keys: [],
      whitelist: [],
      addresses: [],
    });
    expect((await h.store.getAccount(res.body.id))?.passwordHash).toBeNull();
  });

  it.each(['name', 'password'])(
    'refuses a %s at sign-up (rule set B asks none) with 400 naming it',
    async (field) => {
      const res = await h.call('post', '/admin/accounts', {
        email: 'ops@example.com',
        [field]: 'correct horse battery',
      });
      expectProblem(res, 400, 'invalid_parameter', field);
      expect(await h.store.findAccountByEmail('ops@example.com')).toBeNull();
    },
  );

  it('refuses a duplicate e-mail with 409', async () => {
    await newAccount(h, 'ops@example.com');
    expectProblem(
      await h.call('post', '/admin/accounts', { email: 'ops@example.com' }),
      409,
      'email_taken',
      'email',
    );
  });
});
