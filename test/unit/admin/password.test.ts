import { hashPassword, verifyPassword } from '../../../gateway/admin/password';

describe('admin passwords (scrypt)', () => {
  it('encodes scrypt$N$r$p$salt$hash with N=2^15, r=8, p=1 and a 16-byte salt', async () => {
    const encoded = await hashPassword('correct horse battery');
    const parts = encoded.split('$');
    expect(parts.slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(parts[4] ?? '', 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5] ?? '', 'base64')).toHaveLength(32);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const encoded = await hashPassword('correct horse battery');
    await expect(verifyPassword('correct horse battery', encoded)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', encoded)).resolves.toBe(false);
    await expect(verifyPassword('', encoded)).resolves.toBe(false);
  });

  it('salts each hash, so the same password hashes differently', async () => {
    const [a, b] = await Promise.all([hashPassword('same password!'), hashPassword('same password!')]);
    expect(a).not.toBe(b);
    await expect(verifyPassword('same password!', b)).resolves.toBe(true);
  });

  it('treats composed and decomposed Unicode forms as the same password (NFC)', async () => {
    const encoded = await hashPassword('caf\u00e9-caf\u00e9-caf\u00e9');
    await expect(verifyPassword('cafe\u0301-cafe\u0301-cafe\u0301', encoded)).resolves.toBe(true);
  });

  it.each([
    ['empty', ''],
    ['other scheme', 'bcrypt$2b$10$abc'],
    [
      'N not a power of two',
      'scrypt$30000$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    [
      'N too large',
      'scrypt$4194304$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    ['short salt', 'scrypt$32768$8$1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['missing hash', 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA=='],
  ])('answers false (no throw) for a malformed stored hash: %s', async (_name, encoded) => {
    await expect(verifyPassword('whatever password', encoded)).resolves.toBe(false);
  });
});
