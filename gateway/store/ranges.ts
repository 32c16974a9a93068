/**
 * Whitelist ranges (D18): a CIDR becomes a family (4/6) and the first and last address of its block as fixed-width
 * lower-case hex (8 digits for IPv4, 32 for IPv6), so "covers" and "overlaps" are string comparisons in SQL.
 * Shared by both stores.
 */
import ipaddr from 'ipaddr.js';

export interface AddressRange {
  /** The CIDR in canonical form: network address (RFC 5952 for IPv6) and prefix length. */
  cidr: string;
  family: 4 | 6;
  start: string;
  end: string;
}

const IPV4_DOTTED = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Parse a plain address strictly; IPv4-mapped IPv6 becomes IPv4 (D3). Null when malformed. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (text.includes('%')) return null;
  if (!text.includes(':') && !IPV4_DOTTED.test(text)) return null;
  if (!ipaddr.isValid(text)) return null;
  const addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

/** The address as fixed-width hex and its family, for a range lookup; null when malformed. */
export function addressKey(text: string): { family: 4 | 6; hex: string } | null {
  const addr = parseAddress(text);
  if (!addr) return null;
  return { family: addr.kind() === 'ipv4' ? 4 : 6, hex: Buffer.from(addr.toByteArray()).toString('hex') };
}

/** Set (fill = true) or clear the host bits after `prefix` of a byte array. */
function maskBytes(bytes: number[], prefix: number, fill: boolean): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    const hostMask = 0xff >> keep;
    return fill ? b | hostMask : b & ~hostMask & 0xff;
  });
}

/** Parse "203.0.113.7/32", "2001:db8::/64" (or a plain address as its own block); null when malformed. */
export function cidrRange(text: string): AddressRange | null {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? null : text.slice(slash + 1);
  if (prefixText !== null && !/^\d{1,3}$/.test(prefixText)) return null;
  const raw = addrText.includes('%') || !ipaddr.isValid(addrText) ? null : ipaddr.parse(addrText);
  if (!raw || (raw.kind() === 'ipv4' && !IPV4_DOTTED.test(addrText))) return null;
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = raw;
  let prefix = prefixText === null ? (raw.kind() === 'ipv4' ? 32 : 128) : Number(prefixText);
  if (raw.kind() === 'ipv6' && (raw as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (prefix < 96) return null;
    addr = (raw as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const family = addr.kind() === 'ipv4' ? 4 : 6;
  if (prefix > (family === 4 ? 32 : 128)) return null;
  const bytes = addr.toByteArray();
  const first = maskBytes(bytes, prefix, false);
  const network = ipaddr.fromByteArray(first);
  return {
    cidr: `${network.toString()}/${prefix}`,
    family,
    start: Buffer.from(first).toString('hex'),
    end: Buffer.from(maskBytes(bytes, prefix, true)).toString('hex'),
  };
}
