/** Whitelist addresses (rule set B, D18): an IPv4 address, or an IPv6 address or block of prefix 64..128. */
import ipaddr from 'ipaddr.js';
import { InputError } from './errors';

/** Ranges that are never a server's public address; 203.0.113.0/24, 2001:db8::/32 etc. are allowed. */
const REFUSED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'private',
  'carrierGradeNat',
  'uniqueLocal',
  'deprecatedSiteLocal',
]);

/** Split "addr" or "addr/len" and parse; IPv4-mapped IPv6 becomes IPv4 (D3). */
function parse(input: string): { ip: ipaddr.IPv4 | ipaddr.IPv6; prefix: number | null } {
  const slash = input.indexOf('/');
  const text = slash < 0 ? input : input.slice(0, slash);
  const lenText = slash < 0 ? null : input.slice(slash + 1);
  const valid =
    ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes('%'));
  if (!valid || (lenText !== null && !/^[0-9]{1,3}$/.test(lenText))) {
    throw new InputError('address', 'is not an IPv4 or IPv6 address or block');
  }
  let ip = ipaddr.parse(text);
  let prefix = lenText === null ? null : Number(lenText);
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) {
    ip = ip.toIPv4Address();
    if (prefix !== null) prefix = prefix >= 96 ? prefix - 96 : -1;
  }
  return { ip, prefix };
}

/**
 * Validate and normalise a whitelist address to a CIDR ("203.0.113.7/32", "2001:db8:1:2::/64"). Host bits of an
 * IPv6 block are cleared, so "2001:db8:1:2::5/64" names the same /64. Throws an InputError naming `address`.
 */
export function normaliseWhitelistAddress(input: string, minIpv6Prefix: number): string {
  const { ip, prefix } = parse(input.trim());
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  const min = ip.kind() === 'ipv4' ? 32 : minIpv6Prefix;
  const len = prefix ?? max;
  if (len < min || len > max) {
    throw new InputError(
      'address',
      ip.kind() === 'ipv4'
        ? `an IPv4 entry must be a single address (/32), got /${prefix}`
        : `an IPv6 block must have a prefix length between ${min} and 128, got /${prefix}`,
    );
  }
  const base =
    ip.kind() === 'ipv4'
      ? ip
      : (ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/${len}`) as ipaddr.IPv6);
  const range = base.range();
  if (REFUSED_RANGES.has(range)) {
    throw new InputError(
      'address',
      `${base.toString()} is a ${range} address; only public addresses can be whitelisted`,
    );
  }
  return `${base.toString()}/${len}`;
}
