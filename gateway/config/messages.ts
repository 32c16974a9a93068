/** Plain-words wording of config validation problems (no library phrasing such as "Invalid input: expected …"). */
import type { z } from 'zod';

/** zod's own messages start with these words; any other message was written in the schema and is kept. */
const LIBRARY_WORDING = /^(Invalid|Too (big|small)|Unrecognized|Expected)/;

/** "a number", "a list", … for zod's type names. */
const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value pairs)',
};

/** What the file holds at that place, in words: `"8080" (text)`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'symbol') return 'a value (not shown: a secret field)';
  if (value === null) return 'an empty value';
  if (typeof value === 'string') return `${JSON.stringify(value)} (text)`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  return 'a mapping';
}

/** `"A" or "B"`, `"x", "y" or "z"`. */
function oneOf(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] ?? ''}`;
}

/** "at least 1 entry", "at most 65535", "at least 16 characters". */
function bound(issue: { origin: string; inclusive?: boolean }, limit: number | bigint, word: string): string {
  const n = typeof limit === 'bigint' ? Number(limit) : limit;
  const value = issue.inclusive === false ? (word === 'at least' ? n + 1 : n - 1) : n;
  if (issue.origin === 'array' || issue.origin === 'set')
    return `${word} ${value} ${value === 1 ? 'entry' : 'entries'}`;
  if (issue.origin === 'string') return `${word} ${value} ${value === 1 ? 'character' : 'characters'}`;
  return `${word} ${value}`;
}

/** Fields whose value must never be echoed (a misplaced secret stays out of messages and logs). */
const SECRET_FIELD = /pepper|token|secret|pass/i;

/** One issue in plain words (the path is added by the caller). */
export function plainMessage(issue: z.core.$ZodIssue): string {
  if (!LIBRARY_WORDING.test(issue.message)) return issue.message;
  const last = issue.path[issue.path.length - 1];
  const secret = typeof last === 'string' && SECRET_FIELD.test(last);
  const input = 'input' in issue ? issue.input : undefined;
  // A secret's value is described by its kind only ("a number"), never shown.
  const got = secret && input !== undefined ? Symbol.for('hidden') : input;
  switch (issue.code) {
    case 'invalid_type': {
      if (got === undefined) return 'required, but missing';
      const want = TYPE_WORDS[issue.expected] ?? issue.expected;
      return `must be ${want}, but the file has ${describeValue(got)}`;
    }
    case 'invalid_value':
      return got === undefined
        ? `required: ${oneOf(issue.values)}`
        : `must be ${oneOf(issue.values)}, not ${describeValue(got)}`;
    case 'too_small':
      return `must be ${bound(issue, issue.minimum, 'at least')}`;
    case 'too_big':
      return `must be ${bound(issue, issue.maximum, 'at most')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      return options ? `must be ${oneOf(options)}` : 'none of the accepted forms fits here';
    }
    case 'invalid_format':
      return `not a valid ${issue.format}`;
    case 'invalid_key': {
      // A mapping's key (a header or backend name) that its own check refused: that check's words.
      const inner = (issue as { issues?: z.core.$ZodIssue[] }).issues?.[0];
      return inner && !LIBRARY_WORDING.test(inner.message) ? inner.message : 'not an accepted key here';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return 'not an accepted value here';
  }
}
