/**
 * `node dist/gateway/main.js --config FILE`: the process entry at the path the Docker image and the docs name. It only
 * starts the composition root (runtime/main.ts), which wires the gateway, the admin API and the dashboard.
 */
import { run } from '../runtime/main';

if (require.main === module) run();
