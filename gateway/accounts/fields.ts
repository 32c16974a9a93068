/** Account fields shared by the admin API and the dashboard: e-mail, name, password, key label. */
import { z } from 'zod';
import { InputError } from './errors';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password';

function check<T>(schema: z.ZodType<T>, name: string, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new InputError(name, r.error.issues[0]?.message ?? 'invalid value');
}

/** Whether a string holds a C0 control character or DEL. */
const hasControl = (s: string): boolean =>
  [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** A required string with a precise message when missing or of another type. */
function str(what: string) {
  return z.string({
    error: (iss) => (iss.input === undefined ? 'is required' : `must be a string (${what})`),
  });
}

// Pragmatic strict address syntax: dot-atom local part, LDH labels, alphabetic TLD (RFC 5321 lengths).
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** An e-mail address, trimmed; kept as typed (the store compares e-mail addresses case-insensitively). */
export function email(value: unknown): string {
  const s = check(str('an e-mail address'), 'email', value).trim();
  const at = s.lastIndexOf('@');
  if (s.length > 254 || at > 64 || !EMAIL.test(s))
    throw new InputError('email', 'is not a valid e-mail address');
  return s;
}

/** A person's or company's name: 1..200 characters, no control characters. */
export function name(value: unknown): string {
  const s = check(str('a name'), 'name', value).trim();
  if (s.length === 0 || s.length > 200 || hasControl(s)) {
    throw new InputError('name', 'must be 1 to 200 characters without control characters');
  }
  return s;
}

/** A password: 12..1024 characters (code points). */
export function password(value: unknown): string {
  const s = check(str('a password'), 'password', value);
  const length = [...s].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new InputError(
      'password',
      `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
    );
  }
  return s;
}

/** A key label: 1..100 characters, no control characters. */
export function label(value: unknown): string {
  const s = check(str('a label'), 'label', value).trim();
  if (s.length === 0 || s.length > 100 || hasControl(s)) {
    throw new InputError('label', 'must be 1 to 100 characters without control characters');
  }
  return s;
}
