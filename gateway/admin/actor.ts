/** The audit actor of an admin request: the operator (admin token), its peer address and the request id. */
import type { Request, Response } from 'express';
import type { Actor } from '../accounts/audit';
import { requestIdOfResponse } from '../net/request-id-middleware';

/** The operator acting through this request. */
export function operator(req: Request, res: Response): Actor {
  return { kind: 'operator', address: req.socket.remoteAddress ?? '', requestId: requestIdOfResponse(res) };
}
