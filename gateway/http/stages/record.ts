/**
 * The backend's 200 record rendered by the host's adapter, before settling: an answer the adapter cannot render
 * (not JSON, wrong shape, or the adapter throws) is not an answer given, so it is released (D11, issue 13 item 11).
 */
import type { AdapterResponse } from '../../../adapters/types';
import type { RequestContext } from '../context';
import { isIpRecord, isReverseRecord, parseJsonObject } from '../record-shape';

/** The adapter's rendering of a 200 body, or null when it cannot be rendered (logged as a backend fault). */
export function renderRecord(ctx: RequestContext, body: Buffer): AdapterResponse | null {
  const json = parseJsonObject(body);
  const adapter = ctx.host.adapter;
  try {
    if (json !== null && ctx.call.kind === 'reverse' && isReverseRecord(json)) {
      return adapter.renderReverse(ctx.state, json);
    }
    if (json !== null && ctx.call.kind === 'ipv4' && isIpRecord(json))
      return adapter.renderIp(ctx.state, json);
    ctx.deps.logger.warn(
      { call: ctx.call.kind, requestId: ctx.requestId },
      'backend answer has no record shape',
    );
  } catch (err) {
    ctx.deps.logger.warn(
      { err, call: ctx.call.kind, requestId: ctx.requestId },
      'backend answer could not be rendered',
    );
  }
  return null;
}
