/** What one `geogate` command is: its words, arguments, options, run and text (the table is commands.ts). */
import type { ApiClient } from './client';

/** Options of one command, as node:util parseArgs declares them. */
export type OptionSpec = Record<
  string,
  { type: 'string' | 'boolean'; help: string; value?: string; required?: true; requiredIn?: 'A' }
>;

export interface CommandInput {
  api: ApiClient;
  args: Record<string, string>;
  opts: Record<string, string | boolean | undefined>;
  /** All of standard input (for --password-stdin). */
  readStdin(): Promise<string>;
  /** The environment (for `${ENV}` substitution in a config file). */
  env: Record<string, string | undefined>;
}

export interface Command {
  /** Words that select the command, e.g. "keys create". */
  name: string;
  /** Positional arguments, in order. */
  args: string[];
  options?: OptionSpec;
  summary: string;
  run(input: CommandInput): Promise<unknown>;
  /** Human-readable form of the answer. */
  text(result: unknown): string;
  /** The exit code of a completed command (default 0), e.g. 1 when reconcile finds drift. */
  exitCode?(result: unknown): number;
}

/** A usage error (exit code 2). */
export class UsageError extends Error {}
