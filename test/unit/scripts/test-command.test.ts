/**
 * The README's test command is the whole CI: `npm ci && npm test` installs and starts everything the tests need on a
 * fresh machine (package.json `pretest`), and `.ci/run` adds nothing to it, so a newcomer's run and CI's agree.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** The shell scripts `npm test` runs before jest, and every project script they call in turn. */
function setUpScripts(): string[] {
  const seen = new Set<string>();
  const visit = (text: string): void => {
    for (const m of text.matchAll(/scripts\/[\w-]+\.sh/g)) {
      if (seen.has(m[0])) continue;
      seen.add(m[0]);
      visit(read(m[0]));
    }
  };
  visit(scripts['pretest'] ?? '');
  return [...seen];
}

/** Commands a test starts by name: the binary and the Debian package that provides it. */
const TOOLS: readonly { binary: RegExp; pkg: string }[] = [
  { binary: /\/usr\/bin\/chromium\b/, pkg: 'chromium' },
  { binary: /'redis-server'/, pkg: 'redis-server' },
  { binary: /'openssl'/, pkg: 'openssl' },
  { binary: /\/usr\/bin\/python3\b/, pkg: 'python3-geopy' },
  { binary: /\/usr\/bin\/perl\b/, pkg: 'libgeo-coder-osm-perl' },
  { binary: /require_version\(["']GeocodeGlib/, pkg: 'gir1.2-geocodeglib-2.0' },
];

function testSources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) testSources(rel, out);
    // This file names every pattern itself, so it is left out.
    else if (/\.(ts|py|pl)$/.test(entry.name) && path.join(root, rel) !== __filename)
      out.push(fs.readFileSync(path.join(root, rel), 'utf8'));
  }
  return out;
}

describe("the README's test command", () => {
  it('is the second command of the README and the only command .ci/run runs', () => {
    const readme = read('README.md');
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const testLine = block.split('\n')[1] ?? '';
    expect(testLine.startsWith('npm ci && npm test')).toBe(true);
    const commands = read('.ci/run')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .filter((l) => !/^(set |cd |export CI=true$)/.test(l));
    expect(commands).toEqual(['npm ci && npm test || exit']);
  });

  it('installs and starts the services and clients before jest, and lints after it', () => {
    expect(setUpScripts()).toEqual(
      expect.arrayContaining(['scripts/ensure-services.sh', 'scripts/install-clients.sh']),
    );
    expect(scripts['test']).toMatch(/jest/);
    expect(scripts['posttest']).toBe('npm run lint');
  });

  it('installs the Debian package of every program a test starts', () => {
    const installers = setUpScripts()
      .map((f) => read(f))
      .join('\n');
    const sources = testSources('test').join('\n');
    const used = TOOLS.filter((t) => t.binary.test(sources));
    expect(used.length).toBeGreaterThanOrEqual(5);
    for (const tool of used)
      expect({ pkg: tool.pkg, installed: installers.includes(tool.pkg) }).toEqual({
        pkg: tool.pkg,
        installed: true,
      });
  });
});
