/** D3: the client address is the TCP peer, unless the peer is a trusted proxy; then the forwarding headers count. */
import { inCidr, parseAddress, type Cidr, type IpAddress } from './address';

/** Whether an address is inside one of the trusted proxy blocks. */
function isTrusted(address: IpAddress, trustProxy: readonly Cidr[]): boolean {
  return trustProxy.some((cidr) => inCidr(address, cidr));
}

/** Addresses named by `X-Forwarded-For` (preferred) or `Forwarded: for=`, left (client) to right (nearest hop). */
export function forwardedChain(headers: Readonly<Record<string, string | string[] | undefined>>): string[] {
  const xff = headers['x-forwarded-for'];
  if (xff !== undefined) {
    const joined = Array.isArray(xff) ? xff.join(',') : xff;
    return joined.split(',').map((s) => s.trim());
  }
  const fwd = headers['forwarded'];
  if (fwd === undefined) return [];
  const joined = Array.isArray(fwd) ? fwd.join(',') : fwd;
  const out: string[] = [];
  for (const element of joined.split(',')) {
    const m = /(?:^|;)\s*for=("?)([^";]*)\1/i.exec(element.trim());
    if (!m) continue;
    out.push(stripForwardedPort(m[2] ?? ''));
  }
  return out;
}

/** `Forwarded: for="[2001:db8::1]:443"` and `for=192.0.2.1:80` carry ports; drop them. */
function stripForwardedPort(node: string): string {
  if (node.startsWith('[')) return node.slice(1, node.indexOf(']'));
  const colon = node.indexOf(':');
  return colon >= 0 && node.indexOf(':', colon + 1) < 0 ? node.slice(0, colon) : node;
}

/**
 * The client address of a request (D3). Without a trusted peer the forwarding headers are ignored. With one, the
 * chain is walked right to left and the first address that is not a trusted proxy is the client; a malformed entry
 * ends the walk (the hop that appended it is then the client, since nothing left of it can be believed).
 */
export function clientAddress(
  peer: string | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  trustProxy: readonly Cidr[],
): IpAddress | null {
  // A link-local peer may carry a zone ("fe80::1%eth0"); the zone is not part of the address.
  const peerAddress = peer === undefined ? null : parseAddress(peer.replace(/%.*$/, ''));
  if (!peerAddress || trustProxy.length === 0 || !isTrusted(peerAddress, trustProxy)) return peerAddress;
  let client = peerAddress;
  const chain = forwardedChain(headers);
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = parseAddress(chain[i] ?? '');
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, trustProxy)) break;
  }
  return client;
}
