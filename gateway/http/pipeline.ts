/**
 * The request path as named stages over one RequestContext (STYLE.md; docs/gateway.md, "Where things live"):
 * match host (server.ts) → parse (adapter) → client address → credential → identify → plan + admit → forward →
 * settle → render. A refusal is a value a stage returns; a store fault is thrown and answered 503 (or served
 * uncounted under onStoreFailure: open); anything else thrown is a bug, answered 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledHost } from '../config/compile';
import { ANSWERED, RequestContext, type PipelineDeps, type Refusal } from './context';
import { answerAccount } from './stages/account';
import { serveBulk } from './stages/bulk';
import { admitUnits } from './stages/count';
import { checkBackend, forwardRequest } from './stages/forward';
import { parseRequest } from './stages/parse';
import { passthroughRoute, servePassthrough } from './stages/passthrough';
import { answerPreflight, checkMethod } from './stages/preflight';
import { readAnswer } from './stages/record';
import { answerFault, refuse, render } from './stages/render';
import { settle } from './stages/settle';

export type { PipelineDeps } from './context';

/** The gateway's request handler for one host. */
export type HostHandler = (host: CompiledHost, req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Stages the composition root may replace when it builds the handler (benchmarks' ablations); none in production. */
export interface Stages {
  /** Read the backend's answer and render the record (stages/record.ts). */
  read: typeof readAnswer;
}

const OWN_STAGES: Stages = { read: readAnswer };

/** Build the request handler; `replaced` stages are resolved here, once, so a request pays nothing for the seam. */
export function createPipeline(deps: PipelineDeps, replaced?: Partial<Stages>): HostHandler {
  const stages: Stages = replaced === undefined ? OWN_STAGES : { ...OWN_STAGES, ...replaced };
  return (host, req, res) => handle(new RequestContext(deps, host, req, res), stages);
}

/** Run one request through the stages, answer what they return or throw, and write its log line. */
async function handle(ctx: RequestContext, stages: Stages): Promise<void> {
  try {
    const refusal = await walk(ctx, stages);
    if (refusal !== null && refusal !== ANSWERED) {
      refuse(ctx, refusal);
      noteRefusal(ctx, refusal.code);
    }
  } catch (err) {
    try {
      answerFault(ctx, err);
    } catch (renderErr) {
      // The server answers a bare 500 (server.ts); it still carries the request id.
      if (!ctx.res.headersSent) ctx.res.setHeader('x-request-id', ctx.requestId);
      throw renderErr;
    }
  } finally {
    const line = ctx.line;
    line.status = ctx.res.statusCode;
    line.ms = Math.round((performance.now() - ctx.started) * 100) / 100;
    ctx.deps.logger.info(line, 'request');
    ctx.deps.metrics.request(ctx.host, line.identity, ctx.outcome, line.ms);
  }
}

/** An identified caller's refusal for the recent-refusals record (one array push; none when it is off). */
function noteRefusal(ctx: RequestContext, code: string): void {
  const log = ctx.deps.refusals;
  const identity = ctx.identity as RequestContext['identity'] | undefined;
  if (log === undefined || identity === undefined || identity.kind === 'anonymous') return;
  log.note({
    accountId: identity.account.id,
    keyId: identity.kind === 'key' ? identity.key.id : null,
    code,
    address: ctx.address.toString(),
    host: ctx.host.label,
    at: ctx.deps.clock.now(),
  });
}

/** The stages in order; the first refusal ends the walk and is returned. */
async function walk(ctx: RequestContext, stages: Stages): Promise<Refusal | null> {
  if (answerPreflight(ctx)) return null;
  const route = passthroughRoute(ctx);
  if (route !== null) return 'code' in route ? route : servePassthrough(ctx, route);
  const parsed = checkMethod(ctx) ?? (await parseRequest(ctx));
  if (parsed !== null) return parsed;
  if (ctx.account !== null) return answerAccount(ctx);
  const unserved = checkBackend(ctx);
  if (unserved !== null) return unserved;
  if (ctx.bulk !== null) return serveBulk(ctx, ctx.bulk);
  const refusal = await admitUnits(ctx, 1);
  if (refusal !== null) return refusal;
  const sent = performance.now();
  const outcome = await forwardRequest(ctx);
  ctx.deps.metrics.backendAnswered(ctx.call.kind, performance.now() - sent);
  const { kind, record } = stages.read(ctx, outcome);
  const settlement = await settle(ctx, outcome, kind);
  if (settlement.reply === null) ctx.outcome = 'client_gone';
  render(ctx, settlement, outcome, record);
  return null;
}
