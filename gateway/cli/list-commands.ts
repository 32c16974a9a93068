/** `accounts list` and `keys list`: the admin listings, one page or every page (`--all`), as a table or JSON. */
import type { ApiClient } from './client';
import type { Command, CommandInput, OptionSpec } from './command';
import { money, table } from './format';
import { modeOf } from './render';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are JSON documented in docs/admin.md */
type J = any;

/** A listing answer: the rows and where the next page starts (null: none). */
export interface Page {
  items: J[];
  nextCursor: string | null;
}

const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

const PAGE_OPTIONS: OptionSpec = {
  'created-from': {
    type: 'string',
    help: 'created on or after (YYYY-MM-DD or ISO date-time)',
    value: 'WHEN',
  },
  'created-to': {
    type: 'string',
    help: 'created before the end of (YYYY-MM-DD) or before (date-time)',
    value: 'WHEN',
  },
  order: { type: 'string', help: 'asc (default) or desc', value: 'ORDER' },
  limit: { type: 'string', help: 'rows per page, 1 to 1000 (default 100)', value: 'N' },
  cursor: {
    type: 'string',
    help: 'continue after a previous page (its "next page" cursor)',
    value: 'CURSOR',
  },
  all: { type: 'boolean', help: 'follow every page and print all rows' },
};

/** The query string from the options named in `map` (CLI name → API parameter). */
function queryOf(opts: CommandInput['opts'], map: Record<string, string>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [option, param] of Object.entries(map)) {
    const v = str(opts[option]);
    if (v !== undefined) q.set(param, v);
  }
  return q;
}

/** One page, or with `all` every page concatenated (nextCursor null). */
async function fetchPages(api: ApiClient, path: string, q: URLSearchParams, all: boolean): Promise<Page> {
  const items: J[] = [];
  for (;;) {
    const page = (await api.call('GET', `${path}?${q.toString()}`)) as Page;
    items.push(...page.items);
    if (!all || page.nextCursor === null) return { items, nextCursor: page.nextCursor };
    q.set('cursor', page.nextCursor);
  }
}

/** The table and, when there is more, how to get the next page. */
function withNext(text: string, page: Page): string {
  return page.nextCursor === null ? text : `${text}\nmore: add --cursor ${page.nextCursor} (or use --all)`;
}

const COMMON_MAP = {
  'created-from': 'createdFrom',
  'created-to': 'createdTo',
  order: 'order',
  limit: 'limit',
  cursor: 'cursor',
};

/** The listing commands. */
export const LIST_COMMANDS: Command[] = [
  {
    name: 'accounts list',
    args: [],
    options: {
      'email-prefix': { type: 'string', help: 'e-mail addresses starting with this text', value: 'TEXT' },
      status: { type: 'string', help: 'active, suspended or deleted', value: 'STATUS' },
      plan: { type: 'string', help: 'A: unlimited or payg; B: unlimited or credits', value: 'PLAN' },
      sort: { type: 'string', help: 'created (default) or email', value: 'FIELD' },
      ...PAGE_OPTIONS,
    },
    summary: 'list accounts, filtered and sorted, one page at a time (or --all)',
    run({ api, opts }) {
      const q = queryOf(opts, {
        'email-prefix': 'emailPrefix',
        status: 'status',
        plan: 'plan',
        sort: 'sort',
        ...COMMON_MAP,
      });
      return fetchPages(api, '/admin/accounts/list', q, opts.all === true);
    },
    text(r) {
      const page = r as Page;
      const rows = page.items.map((a) => [a.id, a.email, a.name, a.status, money(a.balance), a.createdAt]);
      return withNext(table(['ID', 'EMAIL', 'NAME', 'STATUS', 'BALANCE', 'CREATED'], rows), page);
    },
  },
  {
    name: 'keys list',
    args: ['ACCOUNT'],
    options: {
      status: { type: 'string', help: 'active or revoked', value: 'STATUS' },
      kind: { type: 'string', help: 'payg or unlimited (as of now)', value: 'KIND' },
      ...PAGE_OPTIONS,
    },
    summary: "list an account's keys (prefix, label, kind, status; never the key itself)",
    run({ api, args, opts }) {
      const q = queryOf(opts, { status: 'status', kind: 'kind', ...COMMON_MAP });
      q.set('account', args.ACCOUNT ?? '');
      return fetchPages(api, '/admin/keys', q, opts.all === true);
    },
    text(r) {
      const page = r as Page;
      const rows = page.items.map((k) => [
        k.id,
        k.prefix,
        k.label,
        modeOf(k),
        k.kind,
        k.status,
        k.packageUntil,
        k.createdAt,
      ]);
      return withNext(
        table(['ID', 'PREFIX', 'LABEL', 'MODE', 'KIND', 'STATUS', 'PACKAGE UNTIL', 'CREATED'], rows),
        page,
      );
    },
  },
];
