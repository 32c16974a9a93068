/** Reading a YAML config: `${ENV}` substitution in string values, then strict validation naming file and path. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { crossFieldProblems } from './checks';
import { plainMessage } from './messages';
import { configSchema, type RawConfig } from './schema';

/** A config that cannot be used; the message names the file and the path. */
export class ConfigError extends Error {}

/** "hosts[0].adapter" from a zod/issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** Matches `${NAME}` and `${NAME:-default}`. */
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Substitute into one value, adding a line to `missing` for each unset variable without default. */
function substituteInto(
  value: unknown,
  env: NodeJS.ProcessEnv,
  missing: string[],
  path: PropertyKey[],
): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REF, (_m, name: string, fallback?: string) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      missing.push(`${formatPath(path)}: environment variable ${name} is not set`);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteInto(v, env, missing, [...path, i]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteInto(v, env, missing, [...path, k]);
    return out;
  }
  return value;
}

/**
 * Replace `${NAME}` (and `${NAME:-default}`) in every string value. Every missing variable without default is named
 * in one error (one line each), so an operator sees them all at once. Substitution happens after YAML parsing, so a
 * secret can never change the document's structure.
 */
export function substituteEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  file: string,
  path: PropertyKey[] = [],
): unknown {
  const missing: string[] = [];
  const out = substituteInto(value, env, missing, path);
  if (missing.length > 0) throw new ConfigError(missing.map((m) => `${file}: ${m}`).join('\n'));
  return out;
}

/** One line per problem: `file: path: message`, in plain words. */
function describeIssues(file: string, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') {
        return i.keys.map((k) => `${file}: ${formatPath([...i.path, k])}: unknown key`).join('\n');
      }
      return `${file}: ${formatPath(i.path)}: ${plainMessage(i)}`;
    })
    .join('\n');
}

/** Validate an already-parsed document against `schema` (the composition root passes its composed schema). */
export function validateWith<T extends RawConfig>(
  schema: z.ZodType<T>,
  doc: unknown,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): T {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`${file}: the config must be a YAML mapping`);
  }
  const substituted = substituteEnv(doc, env, file);
  const result = schema.safeParse(substituted, { reportInput: true });
  if (!result.success) throw new ConfigError(describeIssues(file, result.error.issues));
  const problems = crossFieldProblems(result.data);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `${file}: ${p}`).join('\n'));
  return result.data;
}

/** Validate an already-parsed document (used by tests and by `loadConfigFile`). */
export function validateConfig(doc: unknown, file: string, env: NodeJS.ProcessEnv = process.env): RawConfig {
  return validateWith(configSchema, doc, file, env);
}

/** Read, substitute and validate a YAML config file. */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): RawConfig {
  return validateConfig(readConfigDocument(file), file, env);
}

/** Read and parse a YAML config file (no validation). */
export function readConfigDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`${file}: cannot read the config file (${(e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  return doc;
}
