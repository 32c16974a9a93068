/** Strict IP address classification shared by the IP-lookup adapters (the backend answers IPv4 only, D22). */
import { isIP } from 'node:net';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** What a path segment or parameter holds: a dotted-quad IPv4 (no leading zeros), an IPv6 literal, or neither. */
export function classifyIp(text: string): 'ipv4' | 'ipv6' | 'invalid' {
  if (IPV4.test(text)) return 'ipv4';
  return isIP(text) === 6 ? 'ipv6' : 'invalid';
}

/** The gateway code for a non-IPv4 address: ipv4_required for IPv6 (D22), invalid_parameter otherwise. */
export function nonIpv4Code(text: string): 'ipv4_required' | 'invalid_parameter' {
  return classifyIp(text) === 'ipv6' ? 'ipv4_required' : 'invalid_parameter';
}
