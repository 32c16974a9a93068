/**
 * `keys create` with its test-key and end-date options (D40), `keys rotate` (D39: a new secret, the old one working
 * for an overlap of 0 to 7 days) and `keys expire`. The admin API checks the values; the CLI only shapes them.
 */
import { UsageError, type Command, type CommandInput } from './command';
import * as render from './render';

const id = encodeURIComponent;
const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration such as `90`, `90s`, `30m`, `12h` or `7d`, in seconds. */
export function durationSeconds(value: string): number {
  const m = /^(\d{1,7})([smhd]?)$/.exec(value.trim());
  if (!m) throw new UsageError(`--overlap: "${value}" is not a duration such as 0, 30m, 12h or 7d`);
  return Number(m[1]) * (UNIT_SECONDS[m[2] || 's'] as number);
}

/** A burst option's value as a number (the admin API says what range it takes); null for "default". */
function burstValue(option: string, value: string | boolean | undefined): number | null | undefined {
  const text = str(value);
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  if (!/^-?\d{1,12}$/.test(text.trim())) {
    throw new UsageError(`--${option}: "${text}" is not a whole number of requests (or "default")`);
  }
  return Number(text.trim());
}

/** The commands. */
export const KEY_COMMANDS: Command[] = [
  {
    name: 'keys create',
    args: ['ACCOUNT'],
    options: {
      label: { type: 'string', help: 'a label for the key', value: 'LABEL' },
      test: {
        type: 'boolean',
        help: 'a test key (gk_test_…): canned answers, never a backend, never counted',
      },
      expires: { type: 'string', help: 'the time the key stops working (ISO 8601)', value: 'DATE-TIME' },
    },
    summary: 'create a pay-per-use key, or a test key with --test (the key is shown once)',
    run({ api, args, opts }: CommandInput) {
      const body: Record<string, unknown> = {};
      if (str(opts.label) !== undefined) body.label = str(opts.label);
      if (opts.test === true) body.test = true;
      if (str(opts.expires) !== undefined) body.expiresAt = str(opts.expires);
      return api.call('POST', `/admin/accounts/${id(args.ACCOUNT ?? '')}/keys`, body);
    },
    text: render.newKeyText,
  },
  {
    name: 'keys rotate',
    args: ['KEY_ID'],
    options: {
      overlap: {
        type: 'string',
        help: 'how long the old secret keeps working: 0 (default) up to 7d, e.g. 30m, 12h',
        value: 'DURATION',
      },
    },
    summary: 'give a key a new secret, keeping everything else (the new key is shown once)',
    run({ api, args, opts }: CommandInput) {
      const overlapSeconds = durationSeconds(str(opts.overlap) ?? '0');
      return api.call('POST', `/admin/keys/${id(args.KEY_ID ?? '')}/rotate`, { overlapSeconds });
    },
    text: render.newKeyText,
  },
  {
    name: 'keys expire',
    args: ['KEY_ID'],
    options: {
      at: { type: 'string', help: 'the time the key stops working (ISO 8601)', value: 'DATE-TIME' },
      never: { type: 'boolean', help: 'remove the end date' },
    },
    summary: 'set or remove the time a key stops working',
    run({ api, args, opts }: CommandInput) {
      const at = str(opts.at);
      if ((at === undefined) === (opts.never !== true)) {
        throw new UsageError('keys expire: give exactly one of --at DATE-TIME or --never');
      }
      return api.call('PUT', `/admin/keys/${id(args.KEY_ID ?? '')}/expiry`, { expiresAt: at ?? null });
    },
    text: render.keyText,
  },
  {
    name: 'keys burst',
    args: ['KEY_ID'],
    options: {
      'per-second': {
        type: 'string',
        help: 'requests per second for this key (from 1), or "default" for the deployment\'s',
        value: 'N',
      },
      'per-minute': {
        type: 'string',
        help: 'requests per minute for this key (from 1), or "default" for the deployment\'s',
        value: 'N',
      },
      clear: { type: 'boolean', help: "remove the key's own limits (the deployment's apply)" },
    },
    summary: "show or set a key's own burst limits (requests per second and per minute)",
    run({ api, args, opts }: CommandInput) {
      const path = `/admin/keys/${id(args.KEY_ID ?? '')}/burst`;
      const perSecond = burstValue('per-second', opts['per-second']);
      const perMinute = burstValue('per-minute', opts['per-minute']);
      if (opts.clear === true) {
        if (perSecond !== undefined || perMinute !== undefined) {
          throw new UsageError('keys burst: --clear takes no --per-second or --per-minute');
        }
        return api.call('PUT', path, { perSecond: null, perMinute: null });
      }
      if (perSecond === undefined && perMinute === undefined) return api.call('GET', path);
      return api.call('PUT', path, { perSecond: perSecond ?? null, perMinute: perMinute ?? null });
    },
    text: render.burstText,
  },
];
