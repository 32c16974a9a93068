/** The backend's request handler on node:http: routing, validation, records, problems. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BackendData } from '../service';
import {
  coordinate,
  countryCodes,
  DEFAULT_SEARCH_LIMIT,
  ipv4,
  limit,
  MAX_SEARCH_LIMIT,
  searchText,
} from './params';
import { problem, sendJson, sendProblem } from './problem';

type Route = (params: URLSearchParams, res: ServerResponse, head: boolean) => void;

/** Builds the handler over loaded data. Unknown paths 404, non-GET/HEAD 405, bad input 400. */
export function createHandler(data: BackendData): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = new Map<string, Route>([
    ['/reverse', (params, res, head) => reverse(data, params, res, head)],
    ['/search', (params, res, head) => search(data, params, res, head)],
    ['/ipv4', (params, res, head) => ip(data, params, res, head)],
    ['/healthz', (_params, res, head) => sendJson(res, 200, { status: 'ok', dataLoaded: true }, head)],
    ['/version', (_params, res, head) => sendJson(res, 200, data.version, head)],
  ]);
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const head = req.method === 'HEAD';
    const route = routes.get(path);
    try {
      if (!route) return sendProblem(res, problem('not_found', `no such path: ${path.slice(0, 200)}`), head);
      if (req.method !== 'GET' && !head) {
        const p = problem(
          'method_not_allowed',
          `method ${String(req.method)} is not allowed; use GET or HEAD`,
        );
        return sendProblem(res, p, false, { allow: 'GET, HEAD' });
      }
      route(new URLSearchParams(q < 0 ? '' : url.slice(q + 1)), res, head);
    } catch (err) {
      // A fault of ours, never of the input: log the detail, answer a generic 500.
      console.error('backend: internal error', err);
      if (!res.headersSent) sendProblem(res, problem('internal', 'internal error'), head);
      else res.destroy();
    }
  };
}

function reverse(data: BackendData, params: URLSearchParams, res: ServerResponse, head: boolean): void {
  const lat = coordinate(params, 'lat', 90);
  if (!lat.ok) return sendProblem(res, lat.problem, head);
  const lon = coordinate(params, 'lon', 180);
  if (!lon.ok) return sendProblem(res, lon.problem, head);
  sendJson(res, 200, data.reverse.lookup(lat.value, lon.value), head);
}

function search(data: BackendData, params: URLSearchParams, res: ServerResponse, head: boolean): void {
  const q = searchText(params, 'q');
  if (!q.ok) return sendProblem(res, q.problem, head);
  const countries = countryCodes(params, 'countrycodes', (code) => data.search.countryIndexOf(code));
  if (!countries.ok) return sendProblem(res, countries.problem, head);
  const max = limit(params, 'limit', DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  if (!max.ok) return sendProblem(res, max.problem, head);
  const answer = data.search.search({
    q: q.value.text,
    key: q.value.key,
    countries: countries.value,
    limit: max.value,
  });
  sendJson(res, 200, answer, head);
}

function ip(data: BackendData, params: URLSearchParams, res: ServerResponse, head: boolean): void {
  const address = ipv4(params, 'ip');
  if (!address.ok) return sendProblem(res, address.problem, head);
  sendJson(res, 200, data.ip.lookup(address.value.text, address.value.value), head);
}
