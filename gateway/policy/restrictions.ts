/**
 * Key restrictions (D29, issue 15 item 4): a key may name the web pages (referrer/origin patterns) and the source
 * addresses (CIDR blocks) it is accepted from. One module for the syntax, its validation, the compiled form the
 * request path matches against, and the explanation the dashboard's live tester shows, so the tester and the
 * enforcement can never disagree. The syntax is recorded in docs/decisions.md ("Key restrictions").
 *
 * Pattern: `[scheme://]host[:port][/path-prefix]`
 * - scheme: `http` or `https`; absent → either.
 * - host: a DNS name (ASCII; an IDN in its `xn--` form), an IPv4 address or a bracketed IPv6 address; a leading
 *   `*.` matches one or more labels in front of the rest (`*.example.com` matches `a.example.com` and
 *   `a.b.example.com`, not `example.com`). No other `*` in the host.
 * - port: a number 1..65535 or `*` (any); absent → the scheme's default port only (80/443).
 * - path-prefix: starts with `/`; a trailing `*` is allowed and means the same prefix; no other `*`. Checked only
 *   against a Referer (an Origin has no path). `/` alone is no path.
 * A request is matched by its Origin header, or else by its Referer; neither (or `Origin: null`) matches nothing.
 */
import { cidrRange } from '../store/ranges';
import { inCidr, parseCidr, type Cidr, type IpAddress } from '../net/address';
import { parseAddress } from '../net/address';
import type { KeyRestrictions } from '../store/types';

export type { KeyRestrictions } from '../store/types';

/** At most this many referrer patterns per key (D29). */
export const MAX_REFERRERS = 20;
/** At most this many CIDR blocks per key. */
export const MAX_CIDRS = 50;
const MAX_PATTERN_LENGTH = 300;

/** A field-named validation failure: `field` is `referrers`, `referrers[3]`, `cidrs[0]`, ... */
export class RestrictionError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** One compiled referrer pattern. */
export interface OriginRule {
  text: string;
  scheme: 'http' | 'https' | null;
  host: string;
  /** `*.host`: one or more labels in front. */
  sub: boolean;
  port: number | '*' | null;
  path: string | null;
}

/** The compiled form matched on the request path. A null list is "not restricted on this". */
export interface CompiledRestrictions {
  referrers: OriginRule[] | null;
  cidrs: Array<{ text: string; cidr: Cidr }> | null;
}

const PATTERN = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/:?#[\]]+|\[[^\]]*\])(?::([^/?#]*))?(\/[^?#]*)?$/i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Check one host (lower-case); returns the canonical host text or throws naming `field`. */
function checkHost(host: string, field: string): string {
  if (host.startsWith('[')) {
    const inner = host.slice(1, -1);
    const addr = parseAddress(inner);
    if (!addr || addr.kind() !== 'ipv6' || inner.includes('%')) {
      throw new RestrictionError(field, `"${host}" is not a valid bracketed IPv6 address`);
    }
    return `[${addr.toString()}]`;
  }
  if (IPV4.test(host)) {
    const addr = parseAddress(host);
    if (!addr) throw new RestrictionError(field, `"${host}" is not a valid IPv4 address`);
    return addr.toString();
  }
  if (host.length > 253) throw new RestrictionError(field, 'the host name is longer than 253 characters');
  for (const label of host.split('.')) {
    if (!LABEL.test(label)) {
      throw new RestrictionError(
        field,
        label === ''
          ? `"${host}" has an empty label`
          : `"${label}" is not a valid host name label (letters, digits and inner hyphens; an IDN in its xn-- form)`,
      );
    }
  }
  return host;
}

/** Parse and check one referrer pattern; the result's `text` is its canonical form. */
export function parseReferrerPattern(input: unknown, field = 'referrers'): OriginRule {
  if (typeof input !== 'string') throw new RestrictionError(field, 'must be a string');
  const s = input.trim();
  if (s === '') throw new RestrictionError(field, 'must not be empty');
  if (s.length > MAX_PATTERN_LENGTH) {
    throw new RestrictionError(field, `must be at most ${MAX_PATTERN_LENGTH} characters`);
  }
  if (/[\s\p{Cc}]/u.test(s))
    throw new RestrictionError(field, 'must not contain spaces or control characters');
  if (/[?#]/.test(s)) throw new RestrictionError(field, 'must not contain a query (?) or a fragment (#)');
  const m = PATTERN.exec(s);
  if (!m) throw new RestrictionError(field, 'is not of the form [scheme://]host[:port][/path]');
  const [, schemeText, hostText = '', portText, pathText] = m;
  let scheme: OriginRule['scheme'] = null;
  if (schemeText !== undefined) {
    const lower = schemeText.toLowerCase();
    if (lower !== 'http' && lower !== 'https') {
      throw new RestrictionError(field, `the scheme must be http or https, not "${schemeText}"`);
    }
    scheme = lower;
  }
  let hostLower = hostText.toLowerCase();
  const sub = hostLower.startsWith('*.');
  if (sub) hostLower = hostLower.slice(2);
  if (hostLower.includes('*')) {
    throw new RestrictionError(
      field,
      'a wildcard is allowed in the host only as its first label (*.example.com)',
    );
  }
  const host = checkHost(hostLower, field);
  if (sub && (host.startsWith('[') || IPV4.test(host) || !host.includes('.'))) {
    throw new RestrictionError(
      field,
      '*. must be followed by a domain of at least two labels (*.example.com)',
    );
  }
  let port: OriginRule['port'] = null;
  if (portText !== undefined) {
    if (portText === '*') port = '*';
    else if (/^\d{1,5}$/.test(portText) && Number(portText) >= 1 && Number(portText) <= 65535) {
      port = Number(portText);
    } else throw new RestrictionError(field, `the port must be 1 to 65535 or *, not "${portText}"`);
  }
  let path: string | null = null;
  if (pathText !== undefined) {
    const p = pathText.endsWith('*') ? pathText.slice(0, -1) : pathText;
    if (p.includes('*')) {
      throw new RestrictionError(field, 'a wildcard is allowed in the path only at its end (/maps/*)');
    }
    path = p === '/' ? null : p;
  }
  const text =
    (scheme !== null ? `${scheme}://` : '') +
    (sub ? '*.' : '') +
    host +
    (port !== null ? `:${port}` : '') +
    (path ?? '');
  return { text, scheme, host, sub, port, path };
}

/** Parse and check one CIDR (or a plain address as its own block); canonical text and the parsed block. */
export function parseRestrictionCidr(input: unknown, field = 'cidrs'): { text: string; cidr: Cidr } {
  if (typeof input !== 'string') throw new RestrictionError(field, 'must be a string');
  const range = cidrRange(input.trim());
  const cidr = range ? parseCidr(range.cidr) : null;
  if (!range || !cidr) {
    throw new RestrictionError(
      field,
      `"${input.trim().slice(0, 60)}" is not an IPv4 or IPv6 address or CIDR block`,
    );
  }
  return { text: range.cidr, cidr };
}

/** Check a list field: an array of at most `max` entries. */
function list(value: unknown, field: string, max: number): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RestrictionError(field, 'must be an array of strings');
  if (value.length > max) throw new RestrictionError(field, `at most ${max} entries, got ${value.length}`);
  return value;
}

/**
 * Validate and canonicalise restrictions from input (`{ referrers?, cidrs? }`, either list may be absent or empty).
 * Duplicates (after canonicalisation) are dropped, order is kept. Throws a RestrictionError naming the field.
 */
export function normaliseRestrictions(input: unknown): KeyRestrictions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new RestrictionError('restrictions', 'must be an object with referrers and cidrs');
  }
  const o = input as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => k !== 'referrers' && k !== 'cidrs');
  if (unknown.length > 0) throw new RestrictionError(unknown[0] as string, 'is not a known field');
  const referrers = list(o.referrers, 'referrers', MAX_REFERRERS).map(
    (p, i) => parseReferrerPattern(p, `referrers[${i}]`).text,
  );
  const cidrs = list(o.cidrs, 'cidrs', MAX_CIDRS).map((c, i) => parseRestrictionCidr(c, `cidrs[${i}]`).text);
  return { referrers: [...new Set(referrers)], cidrs: [...new Set(cidrs)] };
}

/** Whether restrictions restrict anything. */
export function isRestricted(r: KeyRestrictions | null | undefined): r is KeyRestrictions {
  return r !== null && r !== undefined && (r.referrers.length > 0 || r.cidrs.length > 0);
}

/** Compile (already canonical) restrictions. */
export function compileRestrictions(r: KeyRestrictions): CompiledRestrictions {
  return {
    referrers: r.referrers.length > 0 ? r.referrers.map((p) => parseReferrerPattern(p)) : null,
    cidrs: r.cidrs.length > 0 ? r.cidrs.map((c) => parseRestrictionCidr(c)) : null,
  };
}

// A key record (and so its restrictions object) is cached by the stores and reused across requests: compile once.
const compiled = new WeakMap<KeyRestrictions, CompiledRestrictions>();

/** The compiled form of a stored restrictions object, compiled on first use. */
export function compiledOf(r: KeyRestrictions): CompiledRestrictions {
  let c = compiled.get(r);
  if (c === undefined) {
    c = compileRestrictions(r);
    compiled.set(r, c);
  }
  return c;
}

/** A page address as the matcher sees it: an Origin (no path) or a Referer (with its path). */
export interface PageAddress {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** Null for an Origin. */
  path: string | null;
}

/** Parse an Origin (`asOrigin`) or Referer header value; null when it names no http(s) page. */
export function pageAddress(value: string, asOrigin: boolean): PageAddress | null {
  if (value === 'null' || value.length > 4096) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : null;
  if (scheme === null || url.hostname === '') return null;
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  return { scheme, host: url.hostname, port, path: asOrigin ? null : url.pathname };
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;

/** Whether one rule matches a page address. */
export function ruleMatches(rule: OriginRule, page: PageAddress): boolean {
  if (rule.scheme !== null && rule.scheme !== page.scheme) return false;
  if (rule.sub ? !page.host.endsWith(`.${rule.host}`) : page.host !== rule.host) return false;
  const port = rule.port === null ? DEFAULT_PORT[page.scheme] : rule.port;
  if (port !== '*' && port !== page.port) return false;
  return rule.path === null || page.path === null || page.path.startsWith(rule.path);
}

/** The index of the first rule that matches, or -1. */
export function firstMatch(rules: readonly OriginRule[], page: PageAddress | null): number {
  if (page === null) return -1;
  for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i] as OriginRule, page)) return i;
  return -1;
}

/** The index of the first CIDR holding the address, or -1. */
export function firstCidr(cidrs: CompiledRestrictions['cidrs'] & object, address: IpAddress): number {
  for (let i = 0; i < cidrs.length; i++) if (inCidr(address, (cidrs[i] as { cidr: Cidr }).cidr)) return i;
  return -1;
}

/** Why a request breaks a key's restrictions (public text), or null when it keeps them. */
export function breach(
  r: KeyRestrictions,
  headers: { origin?: string | undefined; referer?: string | undefined },
  address: IpAddress,
): string | null {
  const c = compiledOf(r);
  if (c.cidrs !== null && firstCidr(c.cidrs, address) < 0) {
    return 'This API key is not allowed from the address the request came from.';
  }
  if (c.referrers !== null) {
    const origin = headers.origin;
    const page =
      origin !== undefined
        ? pageAddress(origin, true)
        : headers.referer !== undefined
          ? pageAddress(headers.referer, false)
          : null;
    if (page === null) {
      return 'This API key is restricted to web pages; the request named none (no Origin or Referer header).';
    }
    if (firstMatch(c.referrers, page) < 0) {
      return 'This API key is not allowed from the web page the request came from.';
    }
  }
  return null;
}

/** The live tester's verdict on one input. */
export interface TestVerdict {
  /** Whether the input would be accepted by this rule list. */
  allowed: boolean;
  /** The index and canonical text of the rule that matched; null when none did (or the list is empty). */
  index: number | null;
  rule: string | null;
  /** One sentence for the person. */
  reason: string;
}

/**
 * The tester on a page: `input` without a path after the host (`https://a.example.com`) is an Origin, else a
 * Referer (path checked). The same matcher as the request path.
 */
export function testPage(r: KeyRestrictions, input: string): TestVerdict {
  const rules = compileRestrictions(r).referrers;
  const s = input.trim();
  const asOrigin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*$/i.test(s);
  const page = pageAddress(s, asOrigin);
  if (page === null) {
    return { allowed: false, index: null, rule: null, reason: 'Not an http(s) URL or origin.' };
  }
  if (rules === null) {
    return { allowed: true, index: null, rule: null, reason: 'No referrer patterns: every page is allowed.' };
  }
  const i = firstMatch(rules, page);
  if (i < 0)
    return {
      allowed: false,
      index: null,
      rule: null,
      reason: 'No pattern matches: refused (key_restricted).',
    };
  const rule = (rules[i] as OriginRule).text;
  const how = asOrigin ? 'as an Origin (path not checked)' : 'as a Referer';
  return { allowed: true, index: i, rule, reason: `Matches pattern ${i + 1}, ${rule}, ${how}.` };
}

/** The tester on an address (the client address as the gateway resolved it). */
export function testAddress(r: KeyRestrictions, input: string): TestVerdict {
  const cidrs = compileRestrictions(r).cidrs;
  const address = parseAddress(input.trim());
  if (address === null) {
    return { allowed: false, index: null, rule: null, reason: 'Not an IPv4 or IPv6 address.' };
  }
  if (cidrs === null) {
    return { allowed: true, index: null, rule: null, reason: 'No address blocks: every address is allowed.' };
  }
  const i = firstCidr(cidrs, address);
  if (i < 0)
    return { allowed: false, index: null, rule: null, reason: 'In no block: refused (key_restricted).' };
  const rule = (cidrs[i] as { text: string }).text;
  return { allowed: true, index: i, rule, reason: `In block ${i + 1}, ${rule}.` };
}
