/**
 * The `geogate` commands as a table: adding a command (e.g. issue 4's `migrate` and `reconcile`) is one entry.
 * Each entry names its positional arguments and options; `run` returns the JSON answer and `text` renders it.
 */
import { UsageError, type Command, type CommandInput, type OptionSpec } from './command';
import { KEY_COMMANDS } from './key-commands';
import { LIST_COMMANDS } from './list-commands';
import * as render from './render';
import {
  ConfigUnusable,
  createOperatorOnStore,
  operatorInputProblem,
  migrateStore,
  reconcileStore,
  storeSection,
  type StoreCommandResult,
} from './store-commands';

export type { Command, CommandInput, OptionSpec } from './command';

export { UsageError };

/** A command that talks to the store itself failed, e.g. PostgreSQL unreachable (exit code 1). */
export class CommandFailed extends Error {}

const id = encodeURIComponent;
const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

const CONFIG_OPTION: OptionSpec = {
  config: {
    type: 'string',
    help: 'the gateway config file (its store section)',
    value: 'FILE',
    required: true,
  },
};

/** Run a store command on the config's store; a bad config is a usage error, a store failure exit code 1. */
async function onStore(
  job: (store: ReturnType<typeof storeSection>) => Promise<StoreCommandResult>,
  { opts, env }: CommandInput,
): Promise<StoreCommandResult> {
  let store;
  try {
    store = storeSection(str(opts.config) ?? '', env);
  } catch (err) {
    if (err instanceof ConfigUnusable) throw new UsageError(err.message);
    throw err;
  }
  try {
    return await job(store);
  } catch (err) {
    throw new CommandFailed(`the store failed: ${(err as Error).message}`);
  }
}

/** POST to an account's `keys` or `packages` with the optional `--label` (both answer a new key, shown once). */
function postLabelled({ api, args, opts }: CommandInput, what: 'keys' | 'packages'): Promise<unknown> {
  const label = str(opts.label);
  return api.call(
    'POST',
    `/admin/accounts/${id(args.ACCOUNT ?? '')}/${what}`,
    label === undefined ? {} : { label },
  );
}

const storeText = (r: unknown): string => (r as StoreCommandResult).text;
const storeExit = (r: unknown): number => (r as StoreCommandResult).exitCode;

/** Every command. */
export const COMMANDS: Command[] = [
  ...LIST_COMMANDS,
  ...KEY_COMMANDS,
  {
    name: 'accounts create',
    args: [],
    options: {
      email: { type: 'string', help: 'e-mail address', value: 'EMAIL', required: true },
      name: { type: 'string', help: 'name (rule set A: required)', value: 'NAME', requiredIn: 'A' },
      'password-stdin': {
        type: 'boolean',
        help: 'read the password from standard input (rule set A: required)',
        requiredIn: 'A',
      },
    },
    summary:
      'create an account. Rule set A requires --email, --name and --password-stdin; rule set B takes --email only',
    async run({ api, opts, readStdin }) {
      const body: Record<string, string> = { email: str(opts.email) ?? '' };
      if (str(opts.name) !== undefined) body.name = str(opts.name) ?? '';
      if (opts['password-stdin'] === true) body.password = (await readStdin()).replace(/\r?\n$/, '');
      return api.call('POST', '/admin/accounts', body);
    },
    text: render.accountText,
  },
  {
    name: 'accounts show',
    args: ['ACCOUNT'],
    summary: 'show an account: status, balance, plan, keys (B: whitelist, addresses)',
    run: ({ api, args }) => api.call('GET', `/admin/accounts/${id(args.ACCOUNT ?? '')}`),
    text: render.accountText,
  },
  {
    name: 'accounts find',
    args: ['EMAIL'],
    summary: 'find an account by e-mail address',
    run: ({ api, args }) => api.call('GET', `/admin/accounts?email=${id(args.EMAIL ?? '')}`),
    text: render.accountText,
  },
  {
    name: 'accounts suspend',
    args: ['ACCOUNT'],
    summary: 'suspend an account (its requests get 403 account_suspended)',
    run: ({ api, args }) => api.call('POST', `/admin/accounts/${id(args.ACCOUNT ?? '')}/suspend`),
    text: render.accountText,
  },
  {
    name: 'accounts reinstate',
    args: ['ACCOUNT'],
    summary: 'reinstate a suspended account',
    run: ({ api, args }) => api.call('POST', `/admin/accounts/${id(args.ACCOUNT ?? '')}/reinstate`),
    text: render.accountText,
  },
  {
    name: 'credit',
    args: ['ACCOUNT', 'AMOUNT'],
    options: { 'idempotency-key': { type: 'string', help: 'apply this top-up at most once', value: 'KEY' } },
    summary: 'top up credit (A: EUR such as 12.50; B: whole credits)',
    run({ api, args, opts }) {
      const key = str(opts['idempotency-key']);
      const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
      return api.call(
        'POST',
        `/admin/accounts/${id(args.ACCOUNT ?? '')}/credit`,
        { amount: args.AMOUNT },
        headers,
      );
    },
    text: render.creditText,
  },
  {
    name: 'ledger',
    args: ['ACCOUNT'],
    options: { limit: { type: 'string', help: 'most entries to show (default 100)', value: 'N' } },
    summary: 'list an account’s ledger, newest first',
    run({ api, args, opts }) {
      const limit = str(opts.limit);
      return api.call(
        'GET',
        `/admin/accounts/${id(args.ACCOUNT ?? '')}/ledger${limit ? `?limit=${id(limit)}` : ''}`,
      );
    },
    text: render.ledgerText,
  },
  {
    name: 'refunds',
    args: ['ACCOUNT'],
    summary: 'list an account’s credit notes (refunds, lost disputes) and what it owes',
    run({ api, args }) {
      return api.call('GET', `/admin/accounts/${id(args.ACCOUNT ?? '')}/refunds`);
    },
    text: render.refundsText,
  },
  {
    name: 'keys show',
    args: ['KEY_ID'],
    summary: 'show a key and the addresses holding its IP slots',
    run: ({ api, args }) => api.call('GET', `/admin/keys/${id(args.KEY_ID ?? '')}`),
    text: render.keyText,
  },
  {
    name: 'keys revoke',
    args: ['KEY_ID'],
    summary: 'revoke a key (no way back)',
    run: ({ api, args }) => api.call('POST', `/admin/keys/${id(args.KEY_ID ?? '')}/revoke`),
    text: render.keyText,
  },
  {
    name: 'keys rename',
    args: ['KEY_ID'],
    options: {
      label: { type: 'string', help: 'the new label', value: 'LABEL' },
      'no-label': { type: 'boolean', help: 'remove the label (rule set B)' },
    },
    summary: 'rename a key, active or revoked',
    run({ api, args, opts }) {
      const label = str(opts.label);
      if ((label === undefined) === (opts['no-label'] !== true)) {
        throw new UsageError('keys rename: give exactly one of --label LABEL or --no-label');
      }
      return api.call('PATCH', `/admin/keys/${id(args.KEY_ID ?? '')}`, { label: label ?? null });
    },
    text: render.keyText,
  },
  {
    name: 'keys restrictions',
    args: ['KEY_ID'],
    summary: "show a key's restrictions (allowed web pages and source addresses)",
    run: ({ api, args }) => api.call('GET', `/admin/keys/${id(args.KEY_ID ?? '')}/restrictions`),
    text: render.restrictionsText,
  },
  {
    name: 'keys restrict',
    args: ['KEY_ID'],
    options: {
      referrers: {
        type: 'string',
        help: 'allowed pages, comma-separated: [scheme://]host[:port][/path] (*.example.com allowed)',
        value: 'LIST',
      },
      cidrs: { type: 'string', help: 'allowed source addresses or blocks, comma-separated', value: 'LIST' },
    },
    summary: "replace a key's restrictions (an option left out: that list is emptied; both out: none)",
    run({ api, args, opts }) {
      const split = (v: string | boolean | undefined) =>
        (str(v) ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== '');
      return api.call('PUT', `/admin/keys/${id(args.KEY_ID ?? '')}/restrictions`, {
        referrers: split(opts.referrers),
        cidrs: split(opts.cidrs),
      });
    },
    text: render.restrictionsText,
  },
  {
    name: 'packages buy',
    args: ['ACCOUNT'],
    options: { label: { type: 'string', help: 'a label for the package’s key', value: 'LABEL' } },
    summary: 'rule set A: buy an Unlimited package from the balance (its key is shown once)',
    run: (input) => postLabelled(input, 'packages'),
    text: render.newKeyText,
  },
  {
    name: 'plan set',
    args: ['ACCOUNT', 'PLAN'],
    options: {
      until: {
        type: 'string',
        help: 'end of the Unlimited plan, ISO 8601 (e.g. 2026-12-31T23:59:59Z)',
        value: 'ISO',
      },
    },
    summary: 'rule set B: set the plan to "unlimited --until ISO" or "credits"',
    run({ api, args, opts }) {
      const until = str(opts.until);
      if (args.PLAN === 'unlimited' && until === undefined)
        throw new UsageError('plan unlimited needs --until');
      const body = until === undefined ? { plan: args.PLAN } : { plan: args.PLAN, until };
      return api.call('PUT', `/admin/accounts/${id(args.ACCOUNT ?? '')}/plan`, body);
    },
    text: render.planChangeText,
  },
  {
    name: 'whitelist add',
    args: ['ACCOUNT', 'ADDRESS'],
    summary: 'rule set B: whitelist an IPv4 address or an IPv6 address or block (/64../128)',
    run: ({ api, args }) =>
      api.call('POST', `/admin/accounts/${id(args.ACCOUNT ?? '')}/whitelist`, { address: args.ADDRESS }),
    text: render.whitelistText,
  },
  {
    name: 'whitelist remove',
    args: ['ACCOUNT', 'ENTRY_ID'],
    summary: 'rule set B: remove a whitelist entry',
    async run({ api, args }) {
      await api.call(
        'DELETE',
        `/admin/accounts/${id(args.ACCOUNT ?? '')}/whitelist/${id(args.ENTRY_ID ?? '')}`,
      );
      return { removed: true, id: args.ENTRY_ID };
    },
    text: (r) => `Removed whitelist entry ${(r as { id: string }).id}`,
  },
  {
    name: 'usage',
    args: ['ACCOUNT'],
    options: {
      from: {
        type: 'string',
        help: 'first UTC day, YYYY-MM-DD (default: 29 days before --to)',
        value: 'DAY',
      },
      to: { type: 'string', help: 'last UTC day, YYYY-MM-DD (default: today)', value: 'DAY' },
    },
    summary: 'requests per day: free, billed, refused, for the account and each key',
    run({ api, args, opts }) {
      const q = new URLSearchParams();
      for (const k of ['from', 'to'] as const) if (str(opts[k]) !== undefined) q.set(k, str(opts[k]) ?? '');
      const qs = q.toString();
      return api.call('GET', `/admin/accounts/${id(args.ACCOUNT ?? '')}/usage${qs ? `?${qs}` : ''}`);
    },
    text: render.usageText,
  },
  {
    name: 'migrate',
    args: [],
    options: CONFIG_OPTION,
    summary: 'bring the store schema up to date (embedded or shared store; no admin token needed)',
    run: (input) => onStore(migrateStore, input),
    text: storeText,
    exitCode: storeExit,
  },
  {
    name: 'reconcile',
    args: [],
    options: CONFIG_OPTION,
    summary:
      'shared store: compare Redis with the PostgreSQL ledger (exit 1 on drift); embedded: nothing to do',
    run: (input) => onStore(reconcileStore, input),
    text: storeText,
    exitCode: storeExit,
  },
  {
    name: 'operators create',
    args: ['NAME'],
    options: {
      ...CONFIG_OPTION,
      role: { type: 'string', help: 'support or admin', value: 'ROLE', required: true },
      'password-stdin': { type: 'boolean', help: 'read the password from standard input', required: true },
    },
    summary: "create an operator of the console (on the config's store; no admin token needed)",
    async run(input) {
      const password = (await input.readStdin()).replace(/\r?\n$/, '');
      const op = { name: input.args.NAME ?? '', role: str(input.opts.role) as 'support' | 'admin', password };
      const problem = operatorInputProblem(op);
      if (problem !== null) throw new UsageError(problem);
      return onStore((store) => createOperatorOnStore(store, op), input);
    },
    text: storeText,
    exitCode: storeExit,
  },
];
