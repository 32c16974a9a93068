/**
 * D3, D3a: the client address is the TCP peer, unless the peer is a trusted proxy; then the one forwarding header
 * the operator named is walked right to left. Hot path: no split, no regex, one substring per hop read.
 */
import { inCidr, parseAddress, type Cidr, type IpAddress } from './address';

/** The header the trusted proxies write (D3a); the other one is ignored whatever it says. */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

/** Address-like text (digits, hex, dots, colons, brackets, quotes) is shown in logs; anything else is withheld. */
const SHOWABLE = /^[0-9A-Fa-f:.[\]"]{1,64}$/;

/** The first untrusted forwarding entry could not be parsed: refused 400 `invalid_forwarded` (D3a). */
export class InvalidForwarded {
  /** The offending entry for the warning log line, or "(withheld)" when it could carry anything (e.g. a key). */
  readonly entry: string;
  constructor(
    /** The header read. */
    readonly header: ForwardedHeader,
    entry: string,
  ) {
    this.entry = SHOWABLE.test(entry) ? entry : `(withheld, ${entry.length} characters)`;
  }
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Whether an address is inside one of the trusted proxy blocks. */
export function isTrusted(address: IpAddress, trustProxy: readonly Cidr[]): boolean {
  for (let i = 0; i < trustProxy.length; i++) if (inCidr(address, trustProxy[i] as Cidr)) return true;
  return false;
}

/** Whether a character code is optional whitespace (space, tab). */
function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

/** `text[start, end)` without surrounding spaces/tabs. */
function trimmed(text: string, start: number, end: number): string {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * A node as an address: `1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]`, `[2001:db8::1]:443` or a bare IPv6 address.
 * RFC 7239 quotes (`"[2001:db8::1]:443"`) are removed first. Null when it is none of these.
 */
export function parseNode(node: string): IpAddress | null {
  let s = node;
  if (s.length >= 2 && s.charCodeAt(0) === 34 && s.charCodeAt(s.length - 1) === 34) s = s.slice(1, -1);
  if (s.charCodeAt(0) === 91) {
    const close = s.indexOf(']');
    if (close < 0) return null;
    const rest = s.length - close - 1;
    if (rest !== 0 && !(s.charCodeAt(close + 1) === 58 && isPort(s, close + 2))) return null;
    return parseAddress(s.slice(1, close));
  }
  const colon = s.indexOf(':');
  // One colon: IPv4 with a port. Two or more: a bare IPv6 address (its port must be bracketed).
  if (colon >= 0 && s.indexOf(':', colon + 1) < 0) {
    return isPort(s, colon + 1) ? parseAddress(s.slice(0, colon)) : null;
  }
  return parseAddress(s);
}

/** Whether `s[from..]` is 1–5 decimal digits (a port; RFC 7239 obfuscated ports are not addresses anyway). */
function isPort(s: string, from: number): boolean {
  const n = s.length - from;
  if (n < 1 || n > 5) return false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The `for=` value of one RFC 7239 element `text[start, end)` ("for=…;proto=…"), or null when it has none. */
function forwardedFor(text: string, start: number, end: number): string | null {
  let p = start;
  while (p < end) {
    let semi = text.indexOf(';', p);
    if (semi < 0 || semi > end) semi = end;
    const eq = text.indexOf('=', p);
    if (eq > 0 && eq < semi) {
      const name = trimmed(text, p, eq);
      if (name.length === 3 && name.toLowerCase() === 'for') return trimmed(text, eq + 1, semi);
    }
    p = semi + 1;
  }
  return null;
}

/** One header value as a string (Node joins repeated X-Forwarded-For/Forwarded lines with ", "). */
function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Walk `text` right to left; return the first node that is not a trusted proxy, the peer when every node is
 * trusted (or there is none), or InvalidForwarded when the first untrusted node cannot be parsed.
 */
function walk(
  text: string,
  header: ForwardedHeader,
  peer: IpAddress,
  trustProxy: readonly Cidr[],
): IpAddress | InvalidForwarded {
  let end = text.length;
  let client = peer;
  while (end > 0) {
    const comma = text.lastIndexOf(',', end - 1);
    const start = comma + 1;
    const node = header === 'forwarded' ? forwardedFor(text, start, end) : trimmed(text, start, end);
    end = comma < 0 ? 0 : comma;
    // An empty list member (", ,") or an element without for= adds no hop.
    if (node === null || node === '') continue;
    const hop = parseNode(node);
    if (!hop) return new InvalidForwarded(header, node);
    client = hop;
    if (!isTrusted(hop, trustProxy)) return hop;
  }
  return client;
}

/**
 * The client address of a request (D3, D3a). Without a trusted peer the forwarding headers are ignored; with one,
 * only `header` is read, right to left, skipping trusted proxies. Null when the connection has no peer address.
 */
export function clientAddress(
  peer: string | undefined,
  headers: Headers,
  trustProxy: readonly Cidr[],
  header: ForwardedHeader = 'x-forwarded-for',
): IpAddress | InvalidForwarded | null {
  return fromPeer(peerAddress(peer), headers, trustProxy, header);
}

/** The connection a request came on (its peer address is fixed for its life). */
export interface Connection {
  readonly remoteAddress?: string | undefined;
}

/** Each connection's parsed peer address (null: none or unparsable), parsed on its first request. */
const peers = new WeakMap<Connection, IpAddress | null>();

/**
 * The connection's peer address, parsed once per connection (issue 12: a keep-alive connection carries many
 * requests). A socket that has not connected yet (or is gone) has no address: not cached, read again next time.
 */
export function peerAddressOn(socket: Connection): IpAddress | null {
  let peer = peers.get(socket);
  if (peer === undefined) {
    peer = peerAddress(socket.remoteAddress);
    if (socket.remoteAddress !== undefined) peers.set(socket, peer);
  }
  return peer;
}

/** clientAddress for a request on `socket` (peerAddressOn); the forwarding header is still read per request. */
export function clientAddressOn(
  socket: Connection,
  headers: Headers,
  trustProxy: readonly Cidr[],
  header: ForwardedHeader = 'x-forwarded-for',
): IpAddress | InvalidForwarded | null {
  return fromPeer(peerAddressOn(socket), headers, trustProxy, header);
}

/** The TCP peer's address; a link-local peer may carry a zone ("fe80::1%eth0"), which is not part of the address. */
function peerAddress(peer: string | undefined): IpAddress | null {
  if (peer === undefined) return null;
  const zone = peer.indexOf('%');
  return parseAddress(zone < 0 ? peer : peer.slice(0, zone));
}

function fromPeer(
  peer: IpAddress | null,
  headers: Headers,
  trustProxy: readonly Cidr[],
  header: ForwardedHeader,
): IpAddress | InvalidForwarded | null {
  if (!peer || trustProxy.length === 0 || !isTrusted(peer, trustProxy)) return peer;
  const text = headerText(headers[header]);
  return text === undefined ? peer : walk(text, header, peer, trustProxy);
}
