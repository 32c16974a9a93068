/** problem+json bodies (RFC 9457) of the backend: one builder, one renderer. */
import type { ServerResponse } from 'node:http';
import type { BackendProblem } from '../records';

/** A problem waiting to be rendered; returned by validators instead of thrown. */
export type Problem = BackendProblem;

const TITLES: Record<BackendProblem['code'], string> = {
  invalid_parameter: 'Invalid parameter',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  internal: 'Internal error',
};

const STATUS: Record<BackendProblem['code'], number> = {
  invalid_parameter: 400,
  not_found: 404,
  method_not_allowed: 405,
  internal: 500,
};

/** Builds a problem; `parameter` only for invalid_parameter. */
export function problem(code: BackendProblem['code'], detail: string, parameter?: string): Problem {
  const p: Problem = {
    type: `urn:geogate:backend:problem:${code}`,
    title: TITLES[code],
    status: STATUS[code],
    detail,
    code,
  };
  if (parameter !== undefined) p.parameter = parameter;
  return p;
}

/** Writes a JSON body (or only its headers for HEAD). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  head: boolean,
  contentType = 'application/json; charset=utf-8',
  extra?: Record<string, string>,
): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...extra,
  };
  res.writeHead(status, headers);
  res.end(head ? undefined : text);
}

/** Writes a problem as application/problem+json. */
export function sendProblem(
  res: ServerResponse,
  p: Problem,
  head: boolean,
  extra?: Record<string, string>,
): void {
  sendJson(res, p.status, p, head, 'application/problem+json; charset=utf-8', extra);
}
