/**
 * The customer API reference of this deployment, derived once at start from openapi/customer.yaml: its rule set only
 * (credential positions, quota headers, the codes it answers), its public API address in every sample and in
 * `servers`, its problem pages, and none of the project's internal markers (`x-rule-sets`, decision numbers).
 */
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { Deployment } from '../deployment';

type Json = unknown;
type Obj = Record<string, Json>;

const SAMPLE_ORIGIN = 'https://api.example.com';

const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The overview at the top of the reference, in the rule set's terms. */
function description(rules: RuleSet, problems: string): string {
  const positions = rules.credentialPositions;
  const where = [
    positions.includes('x-api-key') ? 'the `X-API-Key` header (preferred)' : null,
    positions.includes('bearer') ? '`Authorization: Bearer <key>`' : null,
    positions.includes('basic') ? 'HTTP Basic (the key as the user name, no password)' : null,
    positions.includes('x-goog-api-key') ? 'the `X-Goog-Api-Key` header' : null,
    positions.includes('query-key') ? 'the `key` query parameter' : null,
  ].filter((x): x is string => x !== null);
  const money =
    rules.noCreditsCode === 'no_credits'
      ? 'Past the free allowance each request is paid from your balance; when it is empty the answer is 402 `no_credits`.'
      : 'Past the free allowance each request costs one credit; when none is left the answer is 429 `quota_exceeded`.';
  const quota =
    rules.quotaHeaders === 'x-quota'
      ? 'Every counted answer also carries `X-Quota-Limit`, `X-Quota-Used` and `X-Quota-Reset` (Unix seconds of the next 00:00 UTC).'
      : '';
  return [
    `Send your API key in ${where.join(', ')}. Two different keys in one request are refused with 400 \`conflicting_credentials\`; a request without a key gets ${rules.limits.freePerDay} free requests a day per address where the service allows it, otherwise 401 \`missing_key\` (its \`WWW-Authenticate\` header names the accepted ways).`,
    `Every key has ${rules.limits.freePerDay} free requests per UTC day${rules.keyedAllowance === 'account' ? ', shared by the account' : ''}. ${money} Refusals a top-up lifts carry \`links.top_up\`, the page where credit is bought.`,
    `Errors are \`application/problem+json\` (RFC 9457) with a stable \`code\`; the \`type\` is a page that explains the problem and what to do (${problems}CODE), and input errors name the \`parameter\` at fault.`,
    `Quota headers: every counted answer carries the IETF \`RateLimit\` and \`RateLimit-Policy\` fields for the daily free allowance; a 429 carries \`Retry-After\` (seconds until 00:00 UTC). ${quota}`.trim(),
    'Every answer carries `X-Request-Id`, and every error body the same value as `request_id`: quote it when asking for help.',
  ].join('\n\n');
}

/** Remove internal markers and put the deployment's address in every string. */
function clean(v: Json, apiUrl: string): Json {
  if (typeof v === 'string') return v.split(SAMPLE_ORIGIN).join(apiUrl);
  if (Array.isArray(v)) return v.map((x) => clean(x, apiUrl));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (k !== 'x-rule-sets') out[k] = clean(x, apiUrl);
  return out;
}

/** Whether a component marked with `x-rule-sets` applies to this rule set (unmarked ones always do). */
const applies = (v: Json, rules: RuleSet): boolean => {
  const sets = isObj(v) ? v['x-rule-sets'] : undefined;
  return !Array.isArray(sets) || sets.includes(rules.name);
};

/** The reference of this deployment from the project's customer document (not modified). */
export function customerReference(doc: Json, rules: RuleSet, d: Deployment, problemsUrl: string): Json {
  const src = structuredClone(doc) as Obj;
  const components = (src['components'] ?? {}) as Obj;
  // Credential positions: the ones this deployment accepts (config `credentials.accept`, else the rule set's).
  const schemes = (components['securitySchemes'] ?? {}) as Obj;
  for (const [name, s] of Object.entries(schemes)) {
    const pos = isObj(s) ? s['x-credential-position'] : undefined;
    if (typeof pos === 'string' && !rules.credentialPositions.includes(pos as never)) delete schemes[name];
  }
  src['security'] = ((src['security'] ?? []) as Obj[]).filter((req) =>
    Object.keys(req).every((k) => k in schemes),
  );
  // Headers of the other rule set go, and every reference to them.
  const headers = (components['headers'] ?? {}) as Obj;
  for (const [name, h] of Object.entries(headers)) if (!applies(h, rules)) delete headers[name];
  const responses = (components['responses'] ?? {}) as Obj;
  const noCredits = rules.noCreditsCode === 'no_credits';
  for (const [name, r] of Object.entries(responses)) {
    if (!noCredits && name === 'Problem402') delete responses[name];
    if (!isObj(r) || !isObj(r['headers'])) continue;
    for (const [h, ref] of Object.entries(r['headers'])) {
      const target = isObj(ref) && typeof ref['$ref'] === 'string' ? ref['$ref'].split('/').pop() : undefined;
      if (target !== undefined && !(target in headers)) delete r['headers'][h];
    }
  }
  // Rule set B answers no 402: its no-credit refusal is the 429.
  for (const item of Object.values((src['paths'] ?? {}) as Obj)) {
    if (!isObj(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObj(op) || !isObj(op['responses'])) continue;
      if (!noCredits) delete op['responses']['402'];
    }
  }
  const info = (src['info'] ?? {}) as Obj;
  src['info'] = {
    ...info,
    summary: 'Reverse and forward geocoding and IPv4 location.',
    description: description(rules, problemsUrl),
  };
  src['servers'] = [{ url: d.apiUrl }];
  return clean(src, d.apiUrl);
}
