/**
 * `geogate config check FILE`: validate a config file exactly as the gateway does at start (`${ENV}` substituted from
 * this process's environment), without starting anything. Exit 0 valid, 2 invalid with the start-up's messages.
 */
import { compileConfig } from '../config/compile';
import { ConfigError, loadConfigFile } from '../config/load';
import type { Command } from './commands';

/** What a valid config amounts to (printed, or the JSON answer with --json). */
export interface ConfigSummary {
  file: string;
  ruleSet: 'A' | 'B';
  store: 'embedded' | 'shared';
  hosts: string[];
  workers: number;
  drain: { delayMs: number; timeoutMs: number };
  dashboard: boolean;
}

/** Validates and compiles a config file; throws ConfigError with every problem found. */
export type ConfigChecker = (file: string, env: NodeJS.ProcessEnv) => ConfigSummary;

/** The gateway's own check (its schema lets the dashboard section through); the binary passes the composed one. */
export const checkGatewayConfig: ConfigChecker = (file, env) => {
  const raw = loadConfigFile(file, env);
  return summarize(file, compileConfig(raw, file), raw.dashboard !== undefined);
};

/** The summary of a compiled config. */
export function summarize(
  file: string,
  c: ReturnType<typeof compileConfig>,
  dashboard: boolean,
): ConfigSummary {
  return {
    file,
    ruleSet: c.rules.name,
    store: c.store.kind,
    hosts: c.hosts.map((h) => h.label),
    workers: c.workers,
    drain: c.drain,
    dashboard,
  };
}

/** The config file could not be used: the start-up's messages, exit code 2. */
export class ConfigInvalid extends Error {}

/** The `config` commands, given the checker to run. */
export function configCommands(check: ConfigChecker): Command[] {
  return [
    {
      name: 'config check',
      args: ['FILE'],
      summary:
        'validate a config file as the gateway does at start (exit 0 valid, 2 invalid); starts nothing',
      run({ args, env }) {
        try {
          return Promise.resolve(check(args.FILE ?? '', env));
        } catch (err) {
          if (err instanceof ConfigError) throw new ConfigInvalid(err.message);
          throw err;
        }
      },
      text(r) {
        const s = r as ConfigSummary;
        return [
          `${s.file}: valid`,
          `  rule set ${s.ruleSet}, ${s.store} store, ${s.workers} worker(s), dashboard ${s.dashboard ? 'on' : 'off'}`,
          `  hosts: ${s.hosts.join(', ')}`,
          `  drain: ${s.drain.delayMs} ms delay + ${s.drain.timeoutMs} ms timeout`,
        ].join('\n');
      },
    },
  ];
}
