/**
 * Accessibility check with axe-core (Deque's rules engine, from node_modules; no CDN): the WCAG 2.0/2.1 level A and
 * AA rules, run inside the page. Injected through Playwright's evaluate (DevTools protocol), which the pages' strict
 * Content-Security-Policy does not block, so the pages are checked with their real CSP in force.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule tags checked: WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** One line per violated rule and element: "<path>: <rule> (<impact>) <selector>: <summary>". */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(`${AXE_SOURCE};0`);
  const run = `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA_TAGS)} } })
    .then((r) => ({ rules: r.passes.length + r.violations.length,
      lines: r.violations.flatMap((v) => v.nodes.map((n) => v.id + ' (' + v.impact + ') ' + n.target.join(' ')
        + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' '))) }))`;
  const result = (await page.evaluate(run)) as { rules: number; lines: string[] };
  // A run that checked nothing would pass anything: every page has at least a title, a language and text.
  if (result.rules < 5) throw new Error(`axe ran only ${result.rules} rules on ${page.url()}`);
  const path = new URL(page.url()).pathname;
  return result.lines.map((l) => `${path}: ${l}`);
}
