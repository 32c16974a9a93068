/**
 * The five cases every real client is run through (issue 16 item 6) and how a client's expected outcome is written.
 * A case is either an outcome to assert or a reason the client cannot express it (the table in docs/adapters.md).
 */

/** The cases, in the order of the docs table. */
export const CASES = ['success', 'invalid key', 'no key', 'no credit', 'allowance used'] as const;
export type CaseName = (typeof CASES)[number];

/** The refusal cases: how the client must fail, or why it cannot be asked. */
export type Expected<E> = { error: E } | { cannot: string };

/** Whether an expectation is an outcome to assert. */
export function expressible<E>(e: Expected<E>): e is { error: E } {
  return 'error' in e;
}
