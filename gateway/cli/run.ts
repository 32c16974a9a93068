/** The `geogate` CLI: pick a command from the table, parse its arguments strictly, call the admin API, print. */
import { parseArgs } from 'node:util';
import { apiClient, ApiRefusal, ApiUnreachable, type ApiClient } from './client';
import { CommandFailed, COMMANDS, UsageError, type Command, type OptionSpec } from './commands';
import { checkGatewayConfig, ConfigInvalid, configCommands, type ConfigChecker } from './config-commands';
import { versionLine } from '../core/version';

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';

/** Exit codes: 0 ok, 1 the API refused (or could not be reached), 2 usage error. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

/** Where the CLI reads and writes; the real process passes its own, tests may pass others. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  /** How `config check` validates (the binary passes the composed schema of runtime/config.ts). */
  checkConfig?: ConfigChecker;
}

const GLOBAL_OPTIONS: OptionSpec = {
  json: { type: 'boolean', help: 'print the API answer as JSON (for scripts)' },
  url: { type: 'string', help: `admin API base URL (default $GEOGATE_ADMIN_URL or ${DEFAULT_ADMIN_URL})` },
  help: { type: 'boolean', help: 'show help' },
};

/** One line of usage for a command. */
function usageLine(c: Command): string {
  const opts = Object.entries(c.options ?? {}).map(([k, o]) => {
    const text = o.type === 'boolean' ? `--${k}` : `--${k} ${o.value ?? 'VALUE'}`;
    if (o.requiredIn) return `${text} (rule set ${o.requiredIn})`;
    return o.required ? text : `[${text}]`;
  });
  return ['geogate', c.name, ...c.args, ...opts].join(' ');
}

/** Every command: the admin API's table and the local `config` commands. */
function allCommands(check: ConfigChecker = checkGatewayConfig): Command[] {
  return [...COMMANDS, ...configCommands(check)];
}

/** The full help text. */
export function helpText(): string {
  const lines = allCommands().map((c) => `  ${usageLine(c).slice('geogate '.length)}\n      ${c.summary}`);
  const globals = Object.entries(GLOBAL_OPTIONS).map(([k, o]) => `  --${k.padEnd(10)} ${o.help}`);
  return [
    'geogate: manage accounts, keys, credit, packages, plans and whitelists through the admin API.',
    '',
    'Commands:',
    ...lines,
    '  help [COMMAND]',
    '  --version',
    '',
    'An option marked (rule set A) is required in rule set A and refused in rule set B.',
    '',
    'Options for every command:',
    ...globals,
    '',
    'Environment: GEOGATE_ADMIN_TOKEN (required except by migrate, reconcile and operators create), GEOGATE_ADMIN_URL.',
    'Exit codes: 0 ok, 1 refused by the API (or API unreachable), drift found or store failed, 2 usage error.',
  ].join('\n');
}

/** The command named by the leading words of argv (longest match), and the rest. */
function findCommand(
  argv: string[],
  commands: Command[] = allCommands(),
): { command: Command; rest: string[] } | null {
  const matches = commands.filter((c) => c.name.split(' ').every((w, i) => argv[i] === w));
  const command = matches.sort((a, b) => b.name.length - a.name.length)[0];
  return command ? { command, rest: argv.slice(command.name.split(' ').length) } : null;
}

/** The API client from the environment, or a usage error naming what is missing. */
function clientFrom(env: CliIo['env'], urlOption: string | undefined): ApiClient {
  const token = env.GEOGATE_ADMIN_TOKEN;
  if (token === undefined || token === '') {
    throw new UsageError('GEOGATE_ADMIN_TOKEN is not set: export the admin API bearer token first');
  }
  const text = urlOption ?? env.GEOGATE_ADMIN_URL ?? DEFAULT_ADMIN_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`admin URL "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`admin URL "${text}" must be http(s)`);
  return apiClient(url, token);
}

/** Parse a command's arguments strictly (unknown flags and missing or extra arguments are usage errors). */
function parse(command: Command, rest: string[]) {
  const options = { ...GLOBAL_OPTIONS, ...command.options };
  const spec = Object.fromEntries(Object.entries(options).map(([k, o]) => [k, { type: o.type }]));
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const opts = parsed.values as Record<string, string | boolean | undefined>;
  if (opts.help !== true && parsed.positionals.length !== command.args.length) {
    const want = command.args.length === 0 ? 'no arguments' : command.args.join(' ');
    throw new UsageError(`expected ${want}, got ${parsed.positionals.length} argument(s)`);
  }
  for (const [k, o] of Object.entries(options)) {
    if (o.required && opts.help !== true && opts[k] === undefined) throw new UsageError(`--${k} is required`);
  }
  const args = Object.fromEntries(command.args.map((name, i) => [name, parsed.positionals[i] ?? '']));
  return { args, opts };
}

/** Print an API refusal: title and detail (and the field), or the problem itself with --json. */
function printRefusal(io: CliIo, err: ApiRefusal, json: boolean): void {
  if (json) return io.stderr(JSON.stringify({ status: err.status, ...err.problem }, null, 2));
  const p = err.problem;
  const field = p.parameter ? ` [${p.parameter}]` : '';
  io.stderr(`geogate: ${err.status} ${p.title ?? 'refused'}${field}: ${p.detail ?? ''}`);
}

/** Run the CLI with `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.stderr(helpText());
    return EXIT.usage;
  }
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    io.stdout(versionLine('geogate'));
    return EXIT.ok;
  }
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    const found = findCommand(argv.slice(1));
    io.stdout(found ? `usage: ${usageLine(found.command)}\n${found.command.summary}` : helpText());
    return EXIT.ok;
  }
  const found = findCommand(argv, allCommands(io.checkConfig));
  if (!found) {
    io.stderr(`geogate: unknown command "${argv.slice(0, 2).join(' ')}"; run "geogate help"`);
    return EXIT.usage;
  }
  const { command, rest } = found;
  let json = false;
  try {
    const { args, opts } = parse(command, rest);
    json = opts.json === true;
    if (opts.help === true) {
      io.stdout(`usage: ${usageLine(command)}\n${command.summary}`);
      return EXIT.ok;
    }
    let api: ApiClient | null = null;
    const input = {
      args,
      opts,
      env: io.env,
      readStdin: io.readStdin,
      get api(): ApiClient {
        api ??= clientFrom(io.env, typeof opts.url === 'string' ? opts.url : undefined);
        return api;
      },
    };
    const result = await command.run(input);
    io.stdout(json ? JSON.stringify(result, null, 2) : command.text(result));
    return command.exitCode ? command.exitCode(result) : EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`geogate: ${err.message}\nusage: ${usageLine(command)}`);
      return EXIT.usage;
    }
    if (err instanceof ConfigInvalid) {
      io.stderr(err.message);
      return EXIT.usage;
    }
    if (err instanceof ApiRefusal) {
      printRefusal(io, err, json);
      return EXIT.refused;
    }
    if (err instanceof CommandFailed) {
      io.stderr(`geogate: ${command.name}: ${err.message}`);
      return EXIT.refused;
    }
    if (err instanceof ApiUnreachable) {
      io.stderr(`geogate: ${err.message}`);
      return EXIT.refused;
    }
    throw err;
  }
}
