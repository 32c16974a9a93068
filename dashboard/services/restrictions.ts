/**
 * Key restrictions on the dashboard (issue 15 item 4, D29): read and replace the signed-in account's key's
 * restrictions, and the live tester. The tester runs the gateway's own matcher (gateway/policy/restrictions.ts) on
 * the rules as typed, so what it says is what the gateway enforces once they are saved.
 */
import type { Actor } from '../../gateway/accounts/audit';
import {
  parseReferrerPattern,
  parseRestrictionCidr,
  RestrictionError,
  testAddress,
  testPage,
  MAX_CIDRS,
  MAX_REFERRERS,
  type KeyRestrictions,
  type TestVerdict,
} from '../../gateway/policy/restrictions';
import type { AppContext } from '../context';
import { invalidField } from '../errors';
import { ownKey } from './keys';
import { refusing } from './refusals';

type Deps = Pick<AppContext, 'accounts' | 'rules' | 'clock'>;

/** A key's restrictions as the dashboard shows them (empty lists: any). */
export interface RestrictionsJson {
  keyId: string;
  referrers: string[];
  cidrs: string[];
  limits: { referrers: number; cidrs: number };
}

function view(keyId: string, r: KeyRestrictions | undefined): RestrictionsJson {
  return {
    keyId,
    referrers: r?.referrers ?? [],
    cidrs: r?.cidrs ?? [],
    limits: { referrers: MAX_REFERRERS, cidrs: MAX_CIDRS },
  };
}

/** The restrictions of one of the account's keys. */
export async function getRestrictions(d: Deps, accountId: string, keyId: string): Promise<RestrictionsJson> {
  const key = await ownKey(d, accountId, keyId);
  return view(key.id, key.restrictions);
}

/** Lines of a textarea (or the entries of a JSON list): trimmed, blank lines dropped. */
export function lines(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    if (!value.every((x) => typeof x === 'string')) throw invalidField(field, 'Must be a list of strings');
    return (value as string[]).map((x) => x.trim()).filter((x) => x !== '');
  }
  if (typeof value !== 'string') throw invalidField(field, 'Must be text, one entry per line');
  return value
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** Replace the restrictions of one of the account's keys (validated: errors name the line's field). */
export async function setRestrictions(
  d: Deps,
  accountId: string,
  keyId: string,
  input: { referrers: string[]; cidrs: string[] },
  actor?: Actor,
): Promise<RestrictionsJson> {
  const key = await ownKey(d, accountId, keyId);
  const changed = await refusing(d.rules, () => d.accounts.restrictKey(key, input, actor));
  return view(changed.id, changed.restrictions);
}

/** One line's check in the tester. */
export interface LineCheck {
  field: string;
  /** The canonical form, or null when the line is refused. */
  canonical: string | null;
  error: string | null;
}

/** What the tester answers. */
export interface TesterAnswer {
  referrers: LineCheck[];
  cidrs: LineCheck[];
  /** Errors of the lists themselves (too many entries). */
  errors: { field: string; message: string }[];
  page: TestVerdict | null;
  address: TestVerdict | null;
}

function check<T>(items: string[], name: string, parse: (s: string, f: string) => T & { text: string }) {
  const checks: LineCheck[] = [];
  const valid: string[] = [];
  const lineOf: number[] = [];
  items.forEach((s, i) => {
    const field = `${name}[${i}]`;
    try {
      const text = parse(s, field).text;
      checks.push({ field, canonical: text, error: null });
      valid.push(text);
      lineOf.push(i);
    } catch (err) {
      if (!(err instanceof RestrictionError)) throw err;
      checks.push({ field, canonical: null, error: err.detail });
    }
  });
  return { checks, valid, lineOf };
}

/** Name the matching rule by its line in the editor (the matcher counts valid lines only). */
function byLine(v: TestVerdict, lineOf: number[], what: string): TestVerdict {
  if (v.index === null) return v;
  const line = (lineOf[v.index] ?? v.index) + 1;
  return { ...v, index: line - 1, reason: `Allowed: ${what} ${line}, ${v.rule ?? ''}, matches.` };
}

/**
 * The live tester: check each line of the draft rules and say which rule a page (URL or origin) or an address
 * matches, with the gateway's matcher. Changes nothing.
 */
export function testRestrictions(input: Record<string, unknown>): TesterAnswer {
  const refs = check(lines(input['referrers'], 'referrers'), 'referrers', parseReferrerPattern);
  const cidrs = check(lines(input['cidrs'], 'cidrs'), 'cidrs', parseRestrictionCidr);
  const errors: TesterAnswer['errors'] = [];
  if (refs.checks.length > MAX_REFERRERS) {
    errors.push({ field: 'referrers', message: `At most ${MAX_REFERRERS} patterns` });
  }
  if (cidrs.checks.length > MAX_CIDRS)
    errors.push({ field: 'cidrs', message: `At most ${MAX_CIDRS} blocks` });
  const draft: KeyRestrictions = { referrers: refs.valid, cidrs: cidrs.valid };
  const page = typeof input['page'] === 'string' && input['page'].trim() !== '' ? input['page'] : null;
  const address =
    typeof input['address'] === 'string' && input['address'].trim() !== '' ? input['address'] : null;
  return {
    referrers: refs.checks,
    cidrs: cidrs.checks,
    errors,
    page: page === null ? null : byLine(testPage(draft, page.slice(0, 2048)), refs.lineOf, 'pattern'),
    address:
      address === null ? null : byLine(testAddress(draft, address.slice(0, 100)), cidrs.lineOf, 'block'),
  };
}
