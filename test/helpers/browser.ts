/**
 * Browser tests with playwright-core driving Debian's Chromium (never a downloaded browser). Each launch gets a
 * fresh temporary profile (Playwright's own user-data-dir), so no state leaks between tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '../../gateway/core/paths';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether the system Chromium is installed (tests skip with a message outside CI when it is not). */
export const hasChromium = (): boolean => fs.existsSync(CHROMIUM);

/** Launch headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** Console errors and uncaught page errors of a page, with a way to announce a deliberate refusal. */
export interface ErrorWatch {
  errors: string[];
  /**
   * The next document answer for `path` is expected to have this 4xx status (a form the test fills in wrongly on
   * purpose). Chromium logs such a document as "Failed to load resource"; exactly that one line is then not an error.
   */
  expectStatus(path: string, status: number): void;
}

const FAILED = /^Failed to load resource: the server responded with a status of (\d{3})/;

/** Collect console errors and uncaught page errors of a page. */
export function watchErrors(page: Page): ErrorWatch {
  const errors: string[] = [];
  const expected: { path: string; status: number }[] = [];
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const m = FAILED.exec(msg.text());
    const where = msg.location().url;
    if (m && where) {
      const path = new URL(where).pathname;
      const i = expected.findIndex((e) => e.path === path && String(e.status) === m[1]);
      if (i >= 0) {
        expected.splice(i, 1);
        return;
      }
    }
    errors.push(`console: ${msg.text()} (${where || 'no location'}) @ ${page.url()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message} @ ${page.url()}`));
  return {
    errors,
    expectStatus(path, status) {
      expected.push({ path, status });
    },
  };
}

/** Save a full-page screenshot under test-artifacts/<folder>/<name>.png. */
export async function screenshot(page: Page, folder: string, name: string): Promise<void> {
  const dir = path.join(repoRoot(), 'test-artifacts', folder);
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** Document width beyond the viewport (0 when nothing overflows horizontally). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;
}
