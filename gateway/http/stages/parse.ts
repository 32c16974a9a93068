/** Stage: parse. Body (bounded, D2a form), path decoding, then the host's adapter turns the request into a call. */
import type { BulkItem, BulkParse } from '../../../adapters/types';
import { MESSAGES } from '../../core/errors';
import type { RequestContext, Refusal } from '../context';
import type { IncomingMessage } from 'node:http';
import { adapterRequest, flatHeaders, isFormBody, parseForm, readBody } from '../request';

const TOO_LARGE: Refusal = Object.freeze({
  code: 'invalid_parameter',
  detail: 'The request body is too large.',
  facts: Object.freeze({ parameter: 'body' }),
});
const BAD_FORM: Refusal = Object.freeze({
  code: 'invalid_parameter',
  detail: 'The form body is not valid percent-encoding.',
  facts: Object.freeze({ parameter: 'body' }),
});
const BAD_PATH: Refusal = Object.freeze({
  code: 'invalid_parameter',
  detail: 'The path is not valid percent-encoding.',
  facts: Object.freeze({ parameter: 'path' }),
});
const NO_ENDPOINT: Refusal = Object.freeze({
  code: 'not_found',
  detail: MESSAGES.not_found,
});

/** A request's body (bounded) and, for a D2a form, its text and fields. */
export interface RequestBody {
  body: Buffer;
  formText: string | null;
  form: ReturnType<typeof parseForm>;
}

/**
 * The body `readBody` read, parsed when it is a form; the parse and passthrough stages share it (synchronous: no
 * extra promise on the request path).
 */
export function requestBody(req: IncomingMessage, body: Buffer | 'too_large'): RequestBody | Refusal {
  if (body === 'too_large') return TOO_LARGE;
  const formText = isFormBody(req) ? body.toString('utf8') : null;
  const form = formText === null ? null : parseForm(formText);
  if (formText !== null && form === null) return BAD_FORM;
  return { body, formText, form };
}

/** Read and parse the request through the host's adapter; sets areq, form, call (or account) and the adapter's state. */
export async function parseRequest(ctx: RequestContext): Promise<Refusal | null> {
  const read = requestBody(ctx.req, await readBody(ctx.req));
  return 'code' in read ? read : parseWith(ctx, read);
}

/** Parse the request with a body already read (forward auth, D38, parses the original request without one). */
export function parseWith(ctx: RequestContext, read: RequestBody): Refusal | null {
  const { req, host } = ctx;
  const { body, formText, form } = read;
  let path: string;
  try {
    path = decodeURIComponent(ctx.rawPath);
  } catch {
    return BAD_PATH;
  }
  const areq = adapterRequest(
    ctx.line.method,
    path,
    ctx.query,
    flatHeaders(req),
    formText,
    host.adapter.credentialParams,
  );
  ctx.areq = areq;
  ctx.form = form;
  const bulk = host.adapter.bulk;
  if (bulk !== undefined && bulk.matches(areq)) return parseBulk(ctx, bulk.parse(areq, body));
  const account = host.adapter.account?.parse(areq);
  if (account) {
    ctx.state = account.state;
    ctx.account = account;
    return null;
  }
  const parsed = host.adapter.parse(areq);
  if (parsed === null) return NO_ENDPOINT;
  if (!parsed.ok) {
    ctx.state = parsed.state ?? null;
    return parsed.facts === undefined
      ? { code: parsed.code, detail: parsed.detail }
      : { code: parsed.code, detail: parsed.detail, facts: parsed.facts };
  }
  ctx.state = parsed.request.state;
  ctx.call = parsed.request.call;
  return null;
}

/** A bulk call: its lookups, or the refusal its parse returned (rendered with the state it read). */
function parseBulk(ctx: RequestContext, parsed: BulkParse<unknown>): Refusal | null {
  if (parsed === null) return NO_ENDPOINT;
  if (!parsed.ok) {
    ctx.state = parsed.state ?? null;
    return parsed.facts === undefined
      ? { code: parsed.code, detail: parsed.detail }
      : { code: parsed.code, detail: parsed.detail, facts: parsed.facts };
  }
  if (!('bulk' in parsed)) return NO_ENDPOINT;
  ctx.state = parsed.bulk.state;
  ctx.bulk = parsed.bulk;
  ctx.call = (parsed.bulk.items[0] as BulkItem).call;
  return null;
}
