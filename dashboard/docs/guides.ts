/**
 * The provider migration guides (docs/providers/*.md) as customers read them: only the providers this deployment has
 * a host for, with its host names in every sample, without the project's internal references, rendered once at start
 * with markdown-it (raw HTML off: any tag in the source is shown as text; unsafe link schemes are refused by its
 * validator). The customer's key prefix is put in per request, escaped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import type { Deployment } from '../deployment';
import { escape } from '../views/html';

/** The placeholder the guides write for a key. */
export const KEY_PLACEHOLDER = 'gk_YOUR_KEY';

/** One rendered guide. */
export interface Guide {
  /** The adapter's name, the guide's address (`/guides/{adapter}`). */
  adapter: string;
  /** The guide's first heading, as text. */
  title: string;
  /** The host it is about. */
  url: string;
  /** Rendered HTML; KEY_PLACEHOLDER still in it (see `withKey`). */
  body: string;
}

/** The sub-domain each guide's samples use, where it is not the adapter's name. */
const SAMPLE_NAMES: Readonly<Record<string, string>> = { osm: 'nominatim' };

/** Internal references (issues, decisions) that mean nothing to a customer, and what replaces them. */
const INTERNAL: readonly [RegExp, string][] = [
  [/\s*\(issues? \d+[^)]*\)/g, ''],
  [/\s*\(D\d+(?: table)?\)/g, ''],
  [/\(D\d+, /g, '('],
  [/\bD\d+: /g, ''],
  [/\bD\d+ table\b/g, 'error table'],
];

/** The guide's Markdown with this deployment's hosts and without internal references. */
export function localise(markdown: string, d: Deployment): string {
  let text = markdown.replace(
    /(https:\/\/)?([a-z]+)\.geo\.example\.com/g,
    (all, scheme: string | undefined, sub: string) => {
      const adapter = SAMPLE_NAMES[sub] ?? sub;
      const host = d.hosts.find((h) => h.adapter === adapter);
      if (host === undefined) return all;
      return scheme === undefined ? new URL(host.url).host : host.url;
    },
  );
  for (const [re, by] of INTERNAL) text = text.replace(re, by);
  return text;
}

/** Render every guide of a provider this deployment serves, in the hosts' order (one per adapter). */
export function loadGuides(root: string, d: Deployment): Map<string, Guide> {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  const out = new Map<string, Guide>();
  for (const host of d.hosts) {
    if (out.has(host.adapter)) continue;
    let source: string;
    try {
      source = readFileSync(path.join(root, 'docs', 'providers', `${host.adapter}.md`), 'utf8');
    } catch {
      continue;
    }
    const text = localise(source, d);
    const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? host.adapter;
    out.set(host.adapter, { adapter: host.adapter, title, url: host.url, body: md.render(text) });
  }
  return out;
}

/** The guide's HTML with the customer's key prefix in place of the placeholder ("gk_ab12…"), escaped. */
export function withKey(body: string, prefix: string | null): string {
  return prefix === null ? body : body.split(KEY_PLACEHOLDER).join(`${escape(prefix)}…`);
}
