/**
 * Rule sets A and B as data (STYLE.md): limits, prices, slot counts and modes, counting units, accepted credential
 * positions, money units. Stages ask the rule set; they never test the policy name. Every number is the spec's
 * default and can be overridden in the config's `limits:` (D1).
 */
import { DAY_MS } from '../core/clock';

/** Positions a key can be sent in (spec 5.2, D2, D2a). */
export type CredentialPosition =
  | 'x-api-key' // header X-API-Key
  | 'bearer' // Authorization: Bearer
  | 'basic' // HTTP Basic, key as user name, empty password
  | 'query-key' // query parameter `key`
  | 'x-goog-api-key' // D2a: the vendor header
  | 'form-key'; // D2a: `key` in an application/x-www-form-urlencoded POST body

export const ALL_CREDENTIAL_POSITIONS: readonly CredentialPosition[] = [
  'x-api-key',
  'bearer',
  'basic',
  'query-key',
  'x-goog-api-key',
  'form-key',
];

export interface Limits {
  /** Free requests per UTC day per counting unit (spec 5.3, 5.4). */
  freePerDay: number;
  /** Anonymous counting unit prefix lengths (D4; B: IPv6 /40). */
  anonymousIpv4Prefix: number;
  anonymousIpv6Prefix: number;
  /** Prefix lengths of the address unit for IP slots and B's account address limit (D6). */
  slotIpv4Prefix: number;
  slotIpv6Prefix: number;
  /** IP slots of a pay-per-use key and of an Unlimited key (spec 5.5). */
  slotsPayg: number;
  slotsUnlimited: number;
  /** B: distinct addresses per rolling window for an Unlimited account (spec 5.5). */
  unlimitedAccountAddresses: number;
  /** Slot window in ms (24 h). */
  slotWindowMs: number;
  /** Price per billed request in integer units (A: 1 unit = 0.0001 EUR; B: 1 credit). */
  pricePerRequest: number;
  /** A: price of an Unlimited package in units (50 EUR = 500,000 units). */
  packagePrice: number;
  /** Smallest whitelist IPv6 prefix length accepted (B: 64, D18). */
  whitelistMinIpv6Prefix: number;
}

export interface RuleSet {
  readonly name: 'A' | 'B';
  readonly limits: Limits;
  /** fixed: a slot frees 24 h after the address's first request (A); sliding: 24 h after last seen (B) (D13). */
  readonly slotMode: 'fixed' | 'sliding';
  /** Where the free allowance of a keyed request is counted: per key and its network (A, D5) or per account (B). */
  readonly keyedAllowance: 'key-and-network' | 'account';
  /** What a billed request refused for lack of credit answers (A: 402 no_credits; B: 429 quota_exceeded, D7). */
  readonly noCreditsCode: 'no_credits' | 'quota_exceeded';
  /** Unlimited as a package with its own key (A) or as an account plan (B) (D17). */
  readonly unlimited: 'package-key' | 'account-plan';
  /** Whitelisted source addresses identify an account (B only). */
  readonly whitelist: boolean;
  /** Credential positions accepted on every host by default (D2). */
  readonly credentialPositions: readonly CredentialPosition[];
  /** Revoked keys answer key_revoked (A) or invalid_key (B, D9). */
  readonly revokedCode: 'key_revoked' | 'invalid_key';
  /** Quota signalling on 429 and admitted answers (D21): Retry-After (A) or X-Quota-* headers (B). */
  readonly quotaHeaders: 'retry-after' | 'x-quota';
  /** Whether an account needs a name and a password at sign-up (A) or only an e-mail (B). */
  readonly signupNeedsNameAndPassword: boolean;
  /** Whether every key carries a label (A: "a label is set on each key"; B: labels are optional). */
  readonly keyLabelRequired: boolean;
  /** Decimal places of the money unit when shown: A shows EUR with 4 decimals, B whole credits. */
  readonly moneyDecimals: 4 | 0;
  /** What the money unit is called where a balance is shown to a program (`GET /v1/account`): A EUR, B credits. */
  readonly moneyUnit: 'EUR' | 'credits';
}

const COMMON_LIMITS: Limits = {
  freePerDay: 2500,
  anonymousIpv4Prefix: 32,
  anonymousIpv6Prefix: 64,
  slotIpv4Prefix: 32,
  slotIpv6Prefix: 64,
  slotsPayg: 2,
  slotsUnlimited: 3,
  unlimitedAccountAddresses: 2,
  slotWindowMs: DAY_MS,
  pricePerRequest: 1,
  packagePrice: 500_000,
  whitelistMinIpv6Prefix: 64,
};

/** Rule set A (spec, D2, D4, D5, D13, D17). */
export const RULE_SET_A: RuleSet = {
  name: 'A',
  limits: { ...COMMON_LIMITS },
  slotMode: 'fixed',
  keyedAllowance: 'key-and-network',
  noCreditsCode: 'no_credits',
  unlimited: 'package-key',
  whitelist: false,
  credentialPositions: ALL_CREDENTIAL_POSITIONS,
  revokedCode: 'key_revoked',
  quotaHeaders: 'retry-after',
  signupNeedsNameAndPassword: true,
  keyLabelRequired: true,
  moneyDecimals: 4,
  moneyUnit: 'EUR',
};

/** Rule set B (spec, D2, D4, D6, D7, D9, D13, D17, D18). */
export const RULE_SET_B: RuleSet = {
  name: 'B',
  limits: { ...COMMON_LIMITS, anonymousIpv6Prefix: 40, slotsUnlimited: 2 },
  slotMode: 'sliding',
  keyedAllowance: 'account',
  noCreditsCode: 'quota_exceeded',
  unlimited: 'account-plan',
  whitelist: true,
  credentialPositions: ['x-api-key', 'query-key'],
  revokedCode: 'invalid_key',
  quotaHeaders: 'x-quota',
  signupNeedsNameAndPassword: false,
  keyLabelRequired: false,
  moneyDecimals: 0,
  moneyUnit: 'credits',
};

/** The rule set named by the config, with the config's `limits` overrides applied (D1). */
export function ruleSetFor(
  name: 'A' | 'B',
  overrides: Partial<Limits> = {},
  positions?: readonly CredentialPosition[],
): RuleSet {
  const base = name === 'A' ? RULE_SET_A : RULE_SET_B;
  return {
    ...base,
    limits: { ...base.limits, ...overrides },
    credentialPositions: positions ?? base.credentialPositions,
  };
}

/** Format integer units for people and the admin API: A "12.3456" (EUR), B "123" (credits). */
export function formatMoney(rules: RuleSet, units: number): string {
  if (rules.moneyDecimals === 0) return String(units);
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, '0')}`;
}

/**
 * Parse a money amount strictly: A takes a decimal EUR string with at most 4 decimals ("12.5", "0.0001"),
 * B a whole number of credits (number or digit string). Returns integer units, or null when malformed.
 */
export function parseMoney(rules: RuleSet, input: unknown): number | null {
  if (rules.moneyDecimals === 0) {
    const s = typeof input === 'number' ? String(input) : input;
    if (typeof s !== 'string' || !/^[0-9]{1,15}$/.test(s)) return null;
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : null;
  }
  if (typeof input !== 'string') return null;
  const m = /^([0-9]{1,11})(?:\.([0-9]{1,4}))?$/.exec(input);
  if (!m) return null;
  const units = Number(m[1]) * 10_000 + Number((m[2] ?? '').padEnd(4, '0'));
  return Number.isSafeInteger(units) ? units : null;
}
