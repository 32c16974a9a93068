/**
 * `npm run build` (last step): writes the browser bundles the dashboard serves into the build output, so a
 * production install needs no build-time package (redoc: dashboard/redoc-bundle.ts).
 */
import { repoRoot } from '../gateway/core/paths';
import { writeRedocBundle } from '../dashboard/redoc-bundle';

console.log(`build-vendor: wrote ${writeRedocBundle(repoRoot())}`);
