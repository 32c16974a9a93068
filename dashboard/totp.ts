/**
 * The dashboard's second factor: TOTP (RFC 6238, by the `otpauth` library: SHA-1, 6 digits, 30-second steps, one
 * step of clock drift either way) and one-time recovery codes.
 * - The TOTP secret is stored sealed (AES-256-GCM under a key derived from the pepper, bound to the account id), so
 *   a copy of the database alone does not give it away; it is never logged.
 * - A code is accepted once: the store keeps the newest step a code was accepted for and takes only later steps
 *   (atomically, so two instances cannot both accept one code).
 * - Recovery codes (80 random bits each) are stored as keyed SHA-256 hashes and spent atomically, once each.
 * - Attempts are limited like sign-in (dashboard/throttle.ts) and, in addition, per account.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { Secret, TOTP } from 'otpauth';
import qrcode from 'qrcode-generator';
import type { AppContext } from './context';
import { DashboardError } from './errors';
import { limitAttempt } from './throttle';

/** Seconds per TOTP step. */
export const TOTP_PERIOD_S = 30;
/** Steps of clock drift accepted either way. */
export const TOTP_WINDOW = 1;
/** Recovery codes issued at a time. */
export const RECOVERY_CODE_COUNT = 10;
/** Second-factor attempts one account may make per window (besides the sign-in limits per address). */
export const SECOND_FACTOR_LIMIT = { perAccount: 20, windowMs: 15 * 60_000 };

/** Crockford's base-32 alphabet: no I, L, O or U, so a code read aloud or copied by hand is unambiguous. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function derive(pepper: string, label: string): Buffer {
  return createHmac('sha256', pepper).update(`geogate-dashboard|${label}`).digest();
}

/** A new TOTP secret (160 bits, RFC 4226's recommended size), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The TOTP of a secret, labelled for the authenticator app. */
export function totpOf(base32: string, issuer = 'geogate', label = 'account'): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(base32),
  });
}

/** The secret sealed for the store: "v1.<iv>.<ciphertext>.<tag>" (base64url), bound to the account id. */
export function sealSecret(pepper: string, accountId: string, base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(pepper, 'totp-seal'), iv);
  cipher.setAAD(Buffer.from(accountId));
  const body = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
  return ['v1', iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** The secret of a sealed value; throws when it was not sealed for this account with this pepper. */
export function openSecret(pepper: string, accountId: string, sealed: string): string {
  const [v, iv, body, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || !body || !tag) throw new Error('totp: unknown sealed secret format');
  const decipher = createDecipheriv('aes-256-gcm', derive(pepper, 'totp-seal'), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(accountId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** `count` new recovery codes, "xxxx-xxxx-xxxx-xxxx" (16 base-32 characters: 80 random bits). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(16);
    const chars = [...bytes].map((b) => ALPHABET[b & 31] as string).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** A typed recovery code as stored: lower case, separators dropped, look-alikes mapped (o→0, i and l→1); or null. */
export function normaliseRecoveryCode(code: string): string | null {
  const s = code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return /^[0-9a-hjkmnp-tv-z]{16}$/.test(s) ? s : null;
}

/** The stored hash of a recovery code (HMAC-SHA256 under a key derived from the pepper, hex). */
export function recoveryHash(pepper: string, normalised: string): string {
  return createHmac('sha256', derive(pepper, 'recovery-code')).update(normalised).digest('hex');
}

/** The enrolment QR code (the otpauth:// URI) as an SVG data URL: drawn here, no request leaves the page. */
export function qrDataUrl(uri: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(uri);
  qr.make();
  const svg = qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** Whether the account has the second factor on. */
export async function secondFactorOn(ctx: AppContext, accountId: string): Promise<boolean> {
  const state = await ctx.store.totpState(accountId);
  return state !== null && state.enabledAt !== null;
}

/** The step a 6-digit code belongs to at `now` for this secret (within the drift window), or null. */
export function codeStep(base32: string, code: string, now: number): number | null {
  const delta = totpOf(base32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

/**
 * Count one second-factor attempt: the sign-in limits (per client address, per e-mail and address; counted apart
 * from sign-in's own, so a first factor and its code, or a change and its code, are not two sign-in attempts) and
 * the account's own (throws 429 rate_limited past any).
 */
export async function limitSecondFactor(
  ctx: AppContext,
  req: Request,
  account: { id: string; email: string },
): Promise<void> {
  await limitAttempt(ctx, req, account.email, '2fa');
  const now = ctx.clock.now();
  const hit = await ctx.store.hitWindow(`2fa:acct:${account.id}`, SECOND_FACTOR_LIMIT.windowMs, now);
  if (hit.count > SECOND_FACTOR_LIMIT.perAccount) {
    const wait = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
    const minutes = Math.ceil(wait / 60);
    throw new DashboardError(
      'rate_limited',
      `Too many code attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      undefined,
      wait,
    );
  }
}

/**
 * Check a code the customer typed for an account with the second factor on: a TOTP code (its step not used
 * before) or an unused recovery code (spent by this call). Which one it was, or null when neither.
 */
export async function checkSecondFactor(
  ctx: AppContext,
  accountId: string,
  typed: unknown,
): Promise<'totp' | 'recovery' | null> {
  const code = typeof typed === 'string' ? typed.replace(/\s/g, '') : '';
  if (code === '' || code.length > 40) return null;
  const now = ctx.clock.now();
  if (/^\d{6}$/.test(code)) {
    const state = await ctx.store.totpState(accountId);
    if (!state || state.enabledAt === null) return null;
    const step = codeStep(openSecret(ctx.pepper, accountId, state.secret), code, now);
    if (step === null) return null;
    return (await ctx.store.acceptTotpStep(accountId, step)) ? 'totp' : null;
  }
  const normalised = normaliseRecoveryCode(code);
  if (normalised === null) return null;
  const spent = await ctx.store.useRecoveryCode(accountId, recoveryHash(ctx.pepper, normalised), now);
  return spent ? 'recovery' : null;
}

/** The refusal of a wrong (or reused) code, next to the code field. */
export function wrongCode(field = 'otp'): DashboardError {
  return new DashboardError(
    'invalid_credentials',
    'That code is not right, or was used already. Enter the current code from your app, or a recovery code.',
    field,
  );
}
