/** geogate as a library from this checkout's build (dist/): the scenarios of scenarios.ts (docs/library.md). */
import { join } from 'node:path';
import { describeLibrary } from './scenarios';

const ROOT = join(__dirname, '..', '..', '..');

describeLibrary(() => ({
  app: join(ROOT, 'test', 'fixtures', 'library', 'app.js'),
  module: join(ROOT, 'dist', 'runtime', 'library.js'),
  cwd: ROOT,
}));
