import fs from 'node:fs';
import path from 'node:path';

const BACKEND = path.resolve(__dirname, '../../../backend');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('backend isolation', () => {
  it('imports nothing from gateway/ or adapters/ (it knows nothing about keys, accounts, quotas or hosts)', () => {
    const files = sources(BACKEND);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8');
      const specifiers = [...text.matchAll(/(?:from\s+|require\(|import\()\s*['"]([^'"]+)['"]/g)].map(
        (m) => m[1] as string,
      );
      return specifiers
        .filter((s) => s.startsWith('.'))
        .map((s) => path.resolve(path.dirname(file), s))
        .filter((target) => !target.startsWith(BACKEND + path.sep))
        .map((target) => `${path.relative(BACKEND, file)} → ${target}`);
    });
    expect(offending).toEqual([]);
  });
});
