/** Stage: client address (D3) and, for /v1/ipv4 without `ip`, the caller's own address as the lookup (D22). */
import { clientAddressOn, InvalidForwarded } from '../../net/client-address';
import type { RequestContext, Refusal } from '../context';

const IPV4_REQUIRED: Refusal = Object.freeze({
  code: 'ipv4_required',
  detail: 'The caller is on IPv6: pass an IPv4 address in the "ip" parameter.',
  facts: Object.freeze({ parameter: 'ip' }),
});

/** Find the client address; sets address and fills in an ipv4 call's own address. */
export function locateClient(ctx: RequestContext): Refusal | null {
  const { req, deps } = ctx;
  const config = deps.config;
  const address = clientAddressOn(req.socket, req.headers, config.trustProxy, config.trustProxyHeader);
  if (!address) throw new Error('the connection has no peer address');
  if (address instanceof InvalidForwarded) return invalidForwarded(ctx, address);
  ctx.address = address;
  const call = ctx.call;
  // An account endpoint (ctx.account), a passthrough route (ctx.passthrough) and the library's `admit` (no call set)
  // have no backend call.
  if (ctx.account === null && ctx.passthrough === null && call?.kind === 'ipv4' && call.ip === null) {
    if (address.kind() !== 'ipv4') return IPV4_REQUIRED;
    ctx.call = { kind: 'ipv4', ip: address.toString() };
  }
  return null;
}

/** D3a: a trusted proxy passed an entry naming no address; refused and logged, never counted against the proxy. */
function invalidForwarded(ctx: RequestContext, invalid: InvalidForwarded): Refusal {
  const { header, entry } = invalid;
  const peer = ctx.req.socket.remoteAddress;
  ctx.deps.logger.warn({ peer, header, entry, requestId: ctx.requestId }, 'invalid forwarded entry');
  return {
    code: 'invalid_forwarded',
    detail: `The ${header} header names no valid client address.`,
    facts: { parameter: header },
  };
}
