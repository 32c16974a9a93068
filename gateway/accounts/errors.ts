/** Refusals of the accounts service, neutral of HTTP: the admin API and the dashboard each word and render them. */

/** A bad input field; `detail` is public text without the field name ("is not a valid e-mail address"). */
export class InputError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** A feature one rule set lacks. */
export type Feature = 'packages' | 'plan' | 'whitelist';

/** What was not found (ids are never echoed: a pasted key must not come back, D14). */
export type Missing = 'account' | 'key' | 'whitelist_entry';

/** An account rule that refuses the request. */
export type AccountRefusal =
  | { code: 'not_found'; missing: Missing }
  | { code: 'not_in_rule_set'; feature: Feature }
  | { code: 'insufficient_balance'; price: number; balance: number };

/** Thrown by the accounts service; the HTTP layers map `refusal` to their status and text. */
export class AccountError extends Error {
  constructor(readonly refusal: AccountRefusal) {
    super(refusal.code);
  }
}
