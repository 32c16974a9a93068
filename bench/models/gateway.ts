/**
 * `GG_ABLATE=PARTS node dist/bench/models/gateway.js --config FILE`: the gateway process of an ablated variant of
 * `npm run bench:gateway` (`BENCH_ABLATE`): the same composition root as dist/gateway/main.js, given the parts of
 * models/ablate.ts. Cluster workers run this file too, so each builds the same ablation.
 */
import { run } from '../../runtime/main';
import { ablatedParts, ablation } from './ablate';

run(ablation(ablatedParts(process.env['GG_ABLATE'] ?? '')));
