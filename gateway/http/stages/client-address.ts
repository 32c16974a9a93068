/** Stage: client address (D3) and, for /v1/ipv4 without `ip`, the caller's own address as the lookup (D22). */
import { clientAddress } from '../../net/client-address';
import type { RequestContext, Refusal } from '../context';

const IPV4_REQUIRED: Refusal = Object.freeze({
  code: 'ipv4_required',
  detail: 'The caller is on IPv6: pass an IPv4 address in the "ip" parameter.',
  facts: Object.freeze({ parameter: 'ip' }),
});

/** Find the client address; sets address and fills in an ipv4 call's own address. */
export function locateClient(ctx: RequestContext): Refusal | null {
  const address = clientAddress(ctx.req.socket.remoteAddress, ctx.req.headers, ctx.deps.config.trustProxy);
  if (!address) throw new Error('the connection has no peer address');
  ctx.address = address;
  const call = ctx.call;
  // An account endpoint (ctx.account) has no backend call.
  if (ctx.account === null && call.kind === 'ipv4' && call.ip === null) {
    if (address.kind() !== 'ipv4') return IPV4_REQUIRED;
    ctx.call = { kind: 'ipv4', ip: address.toString() };
  }
  return null;
}
