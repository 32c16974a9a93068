/**
 * The problem pages (`/problems/{code}`): what each error of the API means and what to do, in customer words, for
 * this deployment's rule set. Every problem `type` of the main host is one of these pages' URLs.
 */
import { ALL_GATEWAY_CODES, codeToStatus, TITLES, type GatewayCode } from '../../gateway/core/errors';
import type { RuleSet } from '../../gateway/policy/ruleset';

/** A problem page's text: what happened, and what to do. */
export interface ProblemText {
  what: string;
  todo: string;
}

/** The codes this deployment can answer with (rule set B never answers 402 or key_revoked). */
export function problemCodes(rules: RuleSet): GatewayCode[] {
  return ALL_GATEWAY_CODES.filter(
    (c) =>
      (c !== 'no_credits' || rules.noCreditsCode === 'no_credits') &&
      (c !== 'key_revoked' || rules.revokedCode === 'key_revoked'),
  );
}

/** The explanation of `code` for this rule set. */
export function problemText(rules: RuleSet, code: GatewayCode): ProblemText {
  const free = rules.limits.freePerDay;
  const slots = rules.limits.slotsPayg;
  switch (code) {
    case 'missing_key':
      return {
        what: 'This host needs an API key and the request carried none.',
        todo: `Send your key in the X-API-Key header${rules.credentialPositions.includes('bearer') ? ' (or as "Authorization: Bearer <key>")' : ''}. Create keys on the Keys page.`,
      };
    case 'invalid_key':
      return {
        what:
          rules.revokedCode === 'invalid_key'
            ? 'The key is not one of ours, or it was revoked.'
            : 'The key is not one of ours: mistyped, cut short, or from another service.',
        todo: 'Copy the whole key again from where you stored it. A lost key cannot be shown again: create a new one on the Keys page.',
      };
    case 'key_revoked':
      return {
        what: 'The key was revoked and no longer works.',
        todo: 'Create a new key on the Keys page and deploy it in place of the old one.',
      };
    case 'no_credits':
      return {
        what: `The key's ${free} free requests of today are used and the account balance cannot pay for more.`,
        todo: 'Top up your balance on the Credit page (the link is in the answer\'s "links.top_up"): requests are served again at once. Or wait for the free allowance, which starts again at 00:00 UTC.',
      };
    case 'quota_exceeded':
      return {
        what:
          rules.noCreditsCode === 'quota_exceeded'
            ? `The ${free} free requests of today are used and there are no credits left to pay for more.`
            : `The ${free} free requests of today for this address are used.`,
        todo:
          rules.noCreditsCode === 'quota_exceeded'
            ? 'Buy credits on the Credit page (the link is in the answer\'s "links.top_up"), or wait: the Retry-After header says in seconds when the free allowance starts again (00:00 UTC).'
            : 'Use an API key (each key has its own allowance and can pay per request), or wait: the Retry-After header says in seconds when the allowance starts again (00:00 UTC).',
      };
    case 'key_ip_limit':
      return {
        what: `A key can be used from ${slots} addresses per 24 hours, and they are all taken by other addresses.`,
        todo: 'Wait until the time in "next_slot_free_at", or use a separate key for each server. The key\'s page lists the addresses holding its slots.',
      };
    case 'account_ip_limit':
      return {
        what: `The Unlimited plan serves ${rules.limits.unlimitedAccountAddresses} addresses per 24 hours and they are in use.`,
        todo: 'Wait until the time in "next_slot_free_at", or send the requests from the addresses already in use.',
      };
    case 'account_suspended':
      return {
        what: 'The account is suspended, so its keys are refused.',
        todo: 'Contact support (the address is at the foot of the dashboard).',
      };
    case 'rate_limited':
      return {
        what: 'Too many requests came in one second or one minute (this deployment limits bursts per key, per account and per address).',
        todo: 'Wait the number of seconds in the Retry-After header, then retry; spread requests out. The RateLimit header says which window ("burst": a second, "burst-minute": a minute) and its limit.',
      };
    case 'key_restricted':
      return {
        what: 'The key is restricted to some web sites or addresses, and this request came from elsewhere.',
        todo: "Check the key's restrictions on its page in the dashboard: add the site or address, or use another key.",
      };
    case 'conflicting_credentials':
      return {
        what: 'The request carried two different keys (for example one in the header and another in the query).',
        todo: 'Send one key, in one place. The "parameter" member names the second place.',
      };
    case 'invalid_parameter':
      return {
        what: 'A parameter is missing or not in the expected form.',
        todo: 'The "parameter" member names it and "detail" says what is expected; the API reference shows each parameter.',
      };
    case 'invalid_forwarded':
      return {
        what: 'A proxy in front of the service sent a forwarding header that names no valid client address.',
        todo: 'Contact support with the request id: this is a set-up problem on our side of the connection.',
      };
    case 'ipv4_required':
      return {
        what: 'The IP lookup without an address looks up the caller, and the caller came over IPv6.',
        todo: 'Pass the IPv4 address to look up in the "ip" parameter.',
      };
    case 'not_found':
      return {
        what: 'There is no endpoint at this path.',
        todo: 'Check the path against the API reference (the paths start with /v1/).',
      };
    case 'search_unavailable':
      return {
        what: 'This host answers reverse and IP lookups, but not searches by text.',
        todo: 'Use reverse lookups on this host, or ask support which host searches.',
      };
    case 'method_not_allowed':
      return {
        what: 'The endpoint does not take this HTTP method.',
        todo: 'Use GET (the Allow header lists the methods).',
      };
    case 'backend_unavailable':
    case 'backend_timeout':
    case 'store_unavailable':
    case 'internal':
      return {
        what: 'The request could not be served because of a problem on our side. It was not charged.',
        todo: 'Try again in a little while. If it goes on, contact support with the "request_id" of the answer.',
      };
  }
}

/** A page's status and title (the same as the answer's). */
export function problemHead(code: GatewayCode): { status: number; title: string } {
  return { status: codeToStatus(code), title: TITLES[code] };
}
