/** A small client of the admin HTTP API (D15) for the `geogate` CLI. */

/** The API refused the request: carries the problem+json body. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; code?: string; parameter?: string } & Record<
      string,
      unknown
    >,
  ) {
    super(`${status} ${problem.title ?? 'error'}: ${problem.detail ?? ''}`);
  }
}

/** The admin API could not be reached or answered something that is not JSON. */
export class ApiUnreachable extends Error {}

export interface ApiClient {
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<unknown>;
}

/** A client for `baseUrl` with the bearer token. 2xx answers resolve to the parsed body (null for 204). */
export function apiClient(baseUrl: URL, token: string, timeoutMs = 30_000): ApiClient {
  return {
    async call(method, path, body, headers = {}) {
      const url = new URL(path, baseUrl);
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        throw new ApiUnreachable(`cannot reach the admin API at ${baseUrl.origin} (${cause})`);
      }
      if (res.status === 204) return null;
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiUnreachable(`the admin API at ${baseUrl.origin} answered ${res.status} without JSON`);
      }
      if (!res.ok) throw new ApiRefusal(res.status, (parsed ?? {}) as ApiRefusal['problem']);
      return parsed;
    },
  };
}
