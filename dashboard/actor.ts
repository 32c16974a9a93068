/** The audit actor of a dashboard request: the customer's account, the client address (D3) and the request id. */
import type { Request, Response } from 'express';
import type { Actor } from '../gateway/accounts/audit';
import { clientAddress, InvalidForwarded } from '../gateway/net/client-address';
import { requestIdOfResponse } from '../gateway/net/request-id-middleware';
import type { AppContext } from './context';

type Deps = Pick<AppContext, 'trustProxy' | 'trustProxyHeader'>;

/** The client address as text, behind trusted proxies the forwarded one; the peer when that cannot be read. */
function addressOf(ctx: Deps, req: Request): string {
  const peer = req.socket.remoteAddress;
  const address = clientAddress(peer, req.headers, ctx.trustProxy ?? [], ctx.trustProxyHeader);
  return address === null || address instanceof InvalidForwarded ? (peer ?? '') : address.toString();
}

/** The customer `accountId` acting through this request. */
export function customer(ctx: Deps, req: Request, res: Response, accountId: string): Actor {
  return { kind: 'customer', accountId, address: addressOf(ctx, req), requestId: requestIdOfResponse(res) };
}
