/**
 * The nginx configuration of docs/forward-auth.md: nginx `auth_request` asking geogate's forward-auth listener (D38),
 * shared by the e2e tests (test/e2e/forward-auth/proxies.ts) and `npm run bench:forward-auth`, so both run what the
 * page shows (test/unit/gateway/forward-auth-docs.test.ts checks the page against these blocks).
 */

/** What each protected nginx location carries (docs/forward-auth.md, "nginx"); the location adds its proxy_pass. */
export const GEOGATE_LOCATION_BLOCK = `      auth_request /_geogate/admit;
      auth_request_set $geogate_admission $upstream_http_x_geogate_admission;
      auth_request_set $geogate_refusal $upstream_http_x_geogate_refusal;
      auth_request_set $geogate_ratelimit $upstream_http_ratelimit;
      auth_request_set $geogate_ratelimit_policy $upstream_http_ratelimit_policy;
      auth_request_set $geogate_quota_limit $upstream_http_x_quota_limit;
      auth_request_set $geogate_quota_used $upstream_http_x_quota_used;
      auth_request_set $geogate_quota_reset $upstream_http_x_quota_reset;
      add_header RateLimit $geogate_ratelimit always;
      add_header RateLimit-Policy $geogate_ratelimit_policy always;
      add_header X-Quota-Limit $geogate_quota_limit always;
      add_header X-Quota-Used $geogate_quota_used always;
      add_header X-Quota-Reset $geogate_quota_reset always;
      error_page 401 403 = @geogate_refused;
      proxy_intercept_errors on;
      error_page 500 502 503 504 @geogate_release;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-API-Key "";
      proxy_set_header Authorization "";`;

/** The server-level locations: the auth subrequest, the refusal and the release (docs/forward-auth.md). */
export const GEOGATE_SERVER_BLOCK = `    location = /_geogate/admit {
      internal;
      proxy_pass http://geogate_fa/v1/admit;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Forwarded-Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Geogate-Deny-Status 403;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location @geogate_refused {
      rewrite ^ /v1/refusal break;
      proxy_method GET;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Geogate-Refusal $geogate_refusal;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass http://geogate_fa;
    }
    location @geogate_release {
      rewrite ^ /v1/release break;
      proxy_method POST;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Geogate-Admission $geogate_admission;
      proxy_set_header X-Geogate-Upstream-Status $upstream_status;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_pass http://geogate_fa;
    }`;

/**
 * A whole nginx.conf: one worker, no access log, temp files in `dir`, `/v1/…` behind forward auth at `admit` and
 * proxied to `backend`'s `/…`; `extra` is added to the http block (more server blocks).
 */
export function forwardAuthNginxConf(
  dir: string,
  port: number,
  admit: string,
  backend: string,
  extra = '',
  defaultServer = true,
): string {
  const tmp = `${dir}/tmp`;
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${tmp}; proxy_temp_path ${tmp}; fastcgi_temp_path ${tmp}; uwsgi_temp_path ${tmp}; scgi_temp_path ${tmp};
  upstream geogate_fa { server ${new URL(admit).host}; keepalive 64; }
  upstream geocoder { server ${new URL(backend).host}; keepalive 64; }
  server {
    listen 127.0.0.1:${port}${defaultServer ? ' default_server' : ''};
${GEOGATE_SERVER_BLOCK}
    location /v1/ {
${GEOGATE_LOCATION_BLOCK}
      proxy_pass http://geocoder/;
    }
  }
${extra}}
`;
}
