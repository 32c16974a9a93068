/** D24: the error table of each adapter appears, row for row, in docs/adapters.md (the doc cannot drift from code). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTERS } from '../../../adapters';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';

/** The doc with runs of spaces collapsed (prettier pads table cells). */
const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'adapters.md'), 'utf8').replace(
  / +/g,
  ' ',
);
const dropIns = Object.keys(ADAPTERS).filter((n) => n !== 'native');

describe('docs/adapters.md error tables', () => {
  it.each(dropIns.map((n) => [n]))('holds the %s table exactly as exported', (name) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(`../../../adapters/${name}`) as Record<string, unknown>;
    const [constName, table] = Object.entries(mod).find(([k]) => k.endsWith('_ERRORS')) as [
      string,
      Record<string, object>,
    ];
    const section = doc.split(`### ${name} (\`${constName}\`)`)[1]?.split('\n### ')[0];
    expect(section).toBeDefined();
    const columns = Object.keys(table['missing_key'] as object);
    expect(section).toContain(`| gateway code | ${columns.join(' | ')} |`);
    for (const code of ALL_GATEWAY_CODES) {
      const row = table[code] as Record<string, unknown>;
      expect(section).toContain(
        `| \`${code}\` | ${columns.map((k) => `\`${String(row[k])}\``).join(' | ')} |`,
      );
    }
  });
});
