/** Client addresses: parsing, IPv4-mapped normalisation (D3), and counting units by prefix (D4, D6). */
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed CIDR block. */
export interface Cidr {
  address: IpAddress;
  prefix: number;
}

/**
 * Parse a textual address strictly: dotted-quad IPv4 (no octal/hex/short forms) or IPv6 (zone ids refused).
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`) becomes the IPv4 address (D3). Returns null when malformed.
 */
export function parseAddress(text: string): IpAddress | null {
  const s = text.trim();
  if (s.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (!ipaddr.IPv6.isValid(s)) return null;
  const v6 = ipaddr.IPv6.parse(s);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** Parse "a.b.c.d/n", "v6/n" or a plain address (as a single-address block). Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const s = text.trim();
  const slash = s.indexOf('/');
  if (slash < 0) {
    const address = parseAddress(s);
    return address ? { address, prefix: address.kind() === 'ipv4' ? 32 : 128 } : null;
  }
  const address = parseAddress(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!address || !/^[0-9]{1,3}$/.test(bits)) return null;
  const prefix = Number(bits);
  if (prefix > (address.kind() === 'ipv4' ? 32 : 128)) return null;
  return { address, prefix };
}

/** Whether `address` lies inside `cidr` (families must match). */
export function inCidr(address: IpAddress, cidr: Cidr): boolean {
  if (address.kind() !== cidr.address.kind()) return false;
  return (address as ipaddr.IPv4).match(cidr.address as ipaddr.IPv4, cidr.prefix);
}

/** The network address of `address` under `prefix`, as normalised CIDR text ("203.0.113.7/32", "2001:db8::/40"). */
export function prefixUnit(address: IpAddress, prefix: number): string {
  // Hot path: an IPv4 address is its own /32 unit in both rule sets by default.
  if (prefix === 32 && address.kind() === 'ipv4') return `${address.toString()}/32`;
  const bytes = address.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  return `${ipaddr.fromByteArray(bytes).toString()}/${prefix}`;
}

/** The counting unit of an address: IPv4 under `v4Prefix`, IPv6 under `v6Prefix` (D4, D6). */
export function addressUnit(address: IpAddress, v4Prefix: number, v6Prefix: number): string {
  return prefixUnit(address, address.kind() === 'ipv4' ? v4Prefix : v6Prefix);
}
