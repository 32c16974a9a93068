/**
 * Issue 14 item 3: openapi/customer.yaml and openapi/admin.yaml are valid OpenAPI 3.1 (checked by
 * @seriousme/openapi-schema-validator, run as its own ES module process) and agree with the code: the admin routes
 * registered in the Express app, the main host's paths, every error code and its status, the credential positions
 * and quota headers of each rule set.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parse } from 'yaml';
import { ADAPTERS } from '../../../adapters';
import { createAdminApp } from '../../../gateway/admin/app';
import { adminStatus, type AdminCode } from '../../../gateway/admin/problem';
import { ManualClock } from '../../../gateway/core/clock';
import { ALL_GATEWAY_CODES, codeToStatus } from '../../../gateway/core/errors';
import { ALL_CREDENTIAL_POSITIONS, RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import type { Store } from '../../../gateway/store/ports';

const ROOT = join(__dirname, '..', '..', '..');
const CUSTOMER = join(ROOT, 'openapi', 'customer.yaml');
const ADMIN = join(ROOT, 'openapi', 'admin.yaml');

/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are untyped YAML */
type Doc = any;
const load = (file: string): Doc => parse(readFileSync(file, 'utf8'));

const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
const out = [];
for (const f of process.argv.slice(1)) {
  const r = await new Validator().validate(f.startsWith('{') ? JSON.parse(f) : parse(readFileSync(f, 'utf8')));
  out.push({ valid: r.valid, errors: r.errors ?? null });
}
console.log(JSON.stringify(out));
`;

/** Validate documents (file paths, or JSON text) in a child process: the validator is an ES module. */
function validate(...docs: string[]): { valid: boolean; errors: unknown }[] {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', VALIDATE, ...docs], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`validator failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { valid: boolean; errors: unknown }[];
}

/** "method /path/{id}" for every route the admin app registers (Express 5 router stack). */
function adminRoutes(): string[] {
  const app = createAdminApp({
    store: {} as Store,
    rules: RULE_SET_A,
    pepper: 'pepper',
    clock: new ManualClock(0),
    token: 't'.repeat(20),
    logger: pino({ level: 'silent' }),
    // The reload route exists where the process can reload (the gateway's entry passes it).
    reload: () => Promise.resolve({ applied: true }),
  }) as Doc;
  const out = new Set<string>();
  const walk = (stack: Doc[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods as object)) {
          if (m === '_all') continue;
          out.add(`${m} ${prefix}${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle?.stack) walk(layer.handle.stack as Doc[], '/admin');
    }
  };
  walk(app.router.stack as Doc[], '');
  return [...out].sort();
}

/** "method /path" for every operation of a document. */
const operations = (doc: Doc): string[] =>
  Object.entries(doc.paths as Record<string, object>)
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`))
    .sort();

/** code → status from the error responses' `code` enums and `status` consts. */
function documentedCodes(responses: Record<string, Doc>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of Object.values(responses)) {
    const schema = Object.values(r.content ?? {})[0] as Doc;
    const props = schema?.schema?.allOf?.[1]?.properties;
    if (!props?.code?.enum) continue;
    for (const c of props.code.enum as string[]) out.set(c, props.status.const as number);
  }
  return out;
}

describe('the OpenAPI documents', () => {
  it('are valid OpenAPI 3.1; the validator refuses a broken document (so this check can fail)', () => {
    const broken = JSON.stringify({ openapi: '3.1.0', paths: { '/x': { get: { responses: 'none' } } } });
    const [customer, admin, bad] = validate(CUSTOMER, ADMIN, broken);
    expect(customer).toEqual({ valid: true, errors: null });
    expect(admin).toEqual({ valid: true, errors: null });
    expect(bad?.valid).toBe(false);
    expect(load(CUSTOMER).openapi).toBe('3.1.0');
    expect(load(ADMIN).openapi).toBe('3.1.0');
  });
});

describe('openapi/admin.yaml and the admin app', () => {
  const doc = load(ADMIN);

  it('documents exactly the routes the app registers', () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThan(15);
    expect(operations(doc)).toEqual(routes);
  });

  it('every admin error code is documented with its status', () => {
    const codes: AdminCode[] = [
      'invalid_parameter',
      'unauthorized',
      'not_found',
      'not_in_rule_set',
      'method_not_allowed',
      'unsupported_media_type',
      'payload_too_large',
      'email_taken',
      'whitelist_overlap',
      'idempotency_mismatch',
      'already_revoked',
      'insufficient_balance',
      'account_deleted',
      'store_unavailable',
      'internal',
    ];
    const documented = documentedCodes(doc.components.responses);
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
    for (const c of codes) expect([c, documented.get(c)]).toEqual([c, adminStatus(c)]);
  });

  it('documents the listing parameters the route accepts', () => {
    const names = (doc.paths['/admin/accounts/list'].get.parameters as Doc[]).map((p) =>
      String(p.$ref).replace('#/components/parameters/', ''),
    );
    expect(names).toEqual([
      'emailPrefix',
      'status',
      'plan',
      'createdFrom',
      'createdTo',
      'sort',
      'order',
      'limit',
      'cursor',
    ]);
  });
});

describe('openapi/customer.yaml and the main host', () => {
  const doc = load(CUSTOMER);
  const native = ADAPTERS['native'] as Doc;
  const parses = (path: string, query: string): boolean => {
    const req = { method: 'GET', path, query, headers: {} };
    return native.parse(req) !== null || (native.account?.parse(req) ?? null) !== null;
  };

  it('documents exactly the main host paths the native adapter serves', () => {
    expect(operations(doc)).toEqual(['get /v1/account', 'get /v1/ipv4', 'get /v1/reverse', 'get /v1/search']);
    for (const p of Object.keys(doc.paths as object)) expect(parses(p, '')).toBe(true);
    // /v1/search is served since issue 11; an undocumented path is not served (the check can fail)
    expect(parses('/v1/search', 'q=x')).toBe(true);
    expect(parses('/v1/geocode', 'q=x')).toBe(false);
  });

  it('every gateway error code is documented with its status (gateway/core/errors.ts)', () => {
    const documented = documentedCodes(doc.components.responses);
    expect([...documented.keys()].sort()).toEqual([...ALL_GATEWAY_CODES].sort());
    for (const c of ALL_GATEWAY_CODES) expect([c, documented.get(c)]).toEqual([c, codeToStatus(c)]);
  });

  it('documents every credential position with the rule sets that accept it', () => {
    const schemes = Object.values(doc.components.securitySchemes as Record<string, Doc>);
    expect(schemes.map((s) => s['x-credential-position']).sort()).toEqual(
      [...ALL_CREDENTIAL_POSITIONS].sort(),
    );
    for (const rules of [RULE_SET_A, RULE_SET_B]) {
      const accepted = schemes.filter((s) => (s['x-rule-sets'] as string[]).includes(rules.name));
      expect(accepted.map((s) => s['x-credential-position']).sort()).toEqual(
        [...rules.credentialPositions].sort(),
      );
    }
  });

  it('documents the quota headers of each rule set', () => {
    const headers = doc.components.headers as Record<string, Doc>;
    const forRuleSet = (name: string): string[] =>
      Object.keys(headers)
        .filter((h) => (headers[h]['x-rule-sets'] ?? ['A', 'B']).includes(name))
        .sort();
    expect(RULE_SET_A.quotaHeaders).not.toBe('x-quota');
    expect(forRuleSet('A')).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate']);
    expect(RULE_SET_B.quotaHeaders).toBe('x-quota');
    expect(forRuleSet('B')).toEqual([
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'WWW-Authenticate',
      'X-Quota-Limit',
      'X-Quota-Reset',
      'X-Quota-Used',
    ]);
    expect(doc.paths['/v1/reverse'].get.responses['429'].$ref).toBe('#/components/responses/Problem429');
    expect(Object.keys(doc.components.responses.Problem429.headers as object)).toContain('Retry-After');
  });
});
