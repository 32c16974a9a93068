/**
 * The admission planner: from the rule set, the identity, the client address and now, the plan the store executes
 * all-or-nothing (D5, D6, D9, D10). Stages ask the rule set's data; nothing here tests the policy name.
 */
import { DAY_MS, utcDay } from '../core/clock';
import { addressUnit, type IpAddress } from '../net/address';
import type { Account, AdmissionPlan, ApiKey, CounterSpec, Overflow, SlotSpec } from '../store/types';
import type { Identity } from './identity';
import type { RuleSet } from './ruleset';

export interface PlanInput {
  rules: RuleSet;
  identity: Identity;
  address: IpAddress;
  now: number;
  /** Unique admission id (ledger ref). */
  id: string;
  /** How many units the call is worth (a bulk call of n lookups, a passthrough route's cost); absent: 1. */
  units?: number;
}

/** A (rule set A) Unlimited package key whose package is valid at `now` (D17). */
export function hasValidPackage(key: ApiKey, now: number): boolean {
  return key.kind === 'unlimited' && (key.packageUntil === null || key.packageUntil > now);
}

/** How many IP slots a key has at `now`: an Unlimited package key's while its package runs, else pay-per-use's. */
export function keySlotCapacity(rules: RuleSet, key: ApiKey, now: number): number {
  const unlimited = rules.unlimited === 'package-key' && hasValidPackage(key, now);
  return unlimited ? rules.limits.slotsUnlimited : rules.limits.slotsPayg;
}

/** B: the account's Unlimited plan is valid at `now` (D17). */
export function hasValidPlan(account: Account, now: number): boolean {
  return account.unlimitedUntil !== null && account.unlimitedUntil > now;
}

/** The anonymous counting unit of an address (D4; B: IPv4 address, IPv6 /40). */
export function networkUnit(rules: RuleSet, address: IpAddress): string {
  return addressUnit(address, rules.limits.anonymousIpv4Prefix, rules.limits.anonymousIpv6Prefix);
}

/** The address unit held by a slot (D6: IPv4 address, IPv6 /64). */
export function slotMember(rules: RuleSet, address: IpAddress): string {
  return addressUnit(address, rules.limits.slotIpv4Prefix, rules.limits.slotIpv6Prefix);
}

/** A slot set of `scope` with `capacity`, refusing with `refuse` when full. */
function slotSpec(
  rules: RuleSet,
  scope: string,
  member: string,
  capacity: number,
  refuse: SlotSpec['refuse'],
): SlotSpec {
  return { scope, member, capacity, mode: rules.slotMode, windowMs: rules.limits.slotWindowMs, refuse };
}

/** Billing the account past the allowance (A: 402 no_credits; B: 429 quota_exceeded when empty, D7). */
function bill(rules: RuleSet, account: Account): Overflow {
  return {
    kind: 'bill',
    accountId: account.id,
    price: rules.limits.pricePerRequest,
    refuse: rules.noCreditsCode,
  };
}

interface PlanParts {
  slots: SlotSpec[];
  free: CounterSpec[];
  overflow: Overflow;
  usage: string[];
  keyId: string | null;
}

/** Anonymous: the network's (A) or address/block's (B) daily counter; past it, 429 (spec 5.3). */
function anonymousParts(rules: RuleSet, address: IpAddress): PlanParts {
  const subject = `network:${networkUnit(rules, address)}`;
  return {
    slots: [],
    free: [{ id: subject, limit: rules.limits.freePerDay }],
    overflow: { kind: 'refuse', code: 'quota_exceeded' },
    usage: [subject],
    keyId: null,
  };
}

/** A key whose allowance is its own plus its network's (rule set A, D5). */
function keyAndNetworkParts(
  rules: RuleSet,
  key: ApiKey,
  account: Account,
  address: IpAddress,
  now: number,
): PlanParts {
  const member = slotMember(rules, address);
  const unlimited = rules.unlimited === 'package-key' && hasValidPackage(key, now);
  const capacity = keySlotCapacity(rules, key, now);
  const limit = rules.limits.freePerDay;
  return {
    slots: [slotSpec(rules, `key:${key.id}`, member, capacity, 'key_ip_limit')],
    // D5: an Unlimited key never draws on the network's free allowance.
    free: unlimited
      ? []
      : [
          { id: `key:${key.id}`, limit },
          { id: `network:${networkUnit(rules, address)}`, limit },
        ],
    overflow: unlimited ? { kind: 'free' } : bill(rules, account),
    usage: [`key:${key.id}`, `account:${account.id}`],
    keyId: key.id,
  };
}

/** The account's slot set for B's Unlimited address limit (spec 5.5: keys and whitelist together). */
function accountLimitSlots(rules: RuleSet, account: Account, address: IpAddress, now: number): SlotSpec[] {
  if (rules.unlimited !== 'account-plan' || !hasValidPlan(account, now)) return [];
  const capacity = rules.limits.unlimitedAccountAddresses;
  return [slotSpec(rules, `account:${account.id}`, slotMember(rules, address), capacity, 'account_ip_limit')];
}

/** The account-wide allowance (rule set B): keys and whitelisted addresses share it. */
function accountParts(
  rules: RuleSet,
  account: Account,
  key: ApiKey | null,
  address: IpAddress,
  now: number,
): PlanParts {
  const keySlots = key
    ? [
        slotSpec(
          rules,
          `key:${key.id}`,
          slotMember(rules, address),
          keySlotCapacity(rules, key, now),
          'key_ip_limit',
        ),
      ]
    : [];
  const planValid = rules.unlimited === 'account-plan' && hasValidPlan(account, now);
  return {
    // D9: the key's slot is checked before the account address limit.
    slots: [...keySlots, ...accountLimitSlots(rules, account, address, now)],
    free: [{ id: `account:${account.id}`, limit: rules.limits.freePerDay }],
    overflow: planValid ? { kind: 'free' } : bill(rules, account),
    usage: key ? [`key:${key.id}`, `account:${account.id}`] : [`account:${account.id}`],
    keyId: key?.id ?? null,
  };
}

/** The parts for an identity under the rule set. */
function partsFor(input: PlanInput): PlanParts {
  const { rules, identity, address, now } = input;
  switch (identity.kind) {
    case 'anonymous':
      return anonymousParts(rules, address);
    case 'whitelist':
      return accountParts(rules, identity.account, null, address, now);
    case 'key':
      return rules.keyedAllowance === 'key-and-network'
        ? keyAndNetworkParts(rules, identity.key, identity.account, address, now)
        : accountParts(rules, identity.account, identity.key, address, now);
  }
}

/** The UTC day last formatted and the epoch ms it starts at (every request asks for the day in progress). */
let lastDay = { start: Number.NaN, day: '' };

/** `utcDay(now)`, formatted once per UTC day. */
function dayOf(now: number): string {
  const start = Math.floor(now / DAY_MS) * DAY_MS;
  if (start !== lastDay.start) lastDay = { start, day: utcDay(now) };
  return lastDay.day;
}

/** Build the admission plan for one request of `units` units (a plan of one unit carries no `units`). */
export function planAdmission(input: PlanInput): AdmissionPlan {
  const plan: AdmissionPlan = { id: input.id, now: input.now, day: dayOf(input.now), ...partsFor(input) };
  const units = input.units;
  if (units !== undefined && units !== 1) plan.units = units;
  return plan;
}
