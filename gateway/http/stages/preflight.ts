/** Stage 0: CORS preflight (D23) and the methods the gateway serves; neither is ever counted (D11). */
import type { RequestContext, Refusal } from '../context';
import { PREFLIGHT_HEADERS } from '../headers';

const METHODS = new Set(['GET', 'HEAD', 'POST']);

const ALLOW = Object.freeze({ allow: 'GET, HEAD, POST, OPTIONS' });

/** Answer an OPTIONS preflight (true: answered, the request ends here). */
export function answerPreflight(ctx: RequestContext): boolean {
  if (ctx.line.method !== 'OPTIONS') return false;
  ctx.res.writeHead(204, { 'x-request-id': ctx.requestId, ...PREFLIGHT_HEADERS });
  ctx.res.end();
  return true;
}

/** Refuse a method the gateway does not serve (405 with Allow). */
export function checkMethod(ctx: RequestContext): Refusal | null {
  const method = ctx.line.method;
  if (METHODS.has(method)) return null;
  return { code: 'method_not_allowed', detail: `Method ${method} is not allowed.`, headers: ALLOW };
}
