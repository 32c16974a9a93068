/** Stage: settle. Decides keep-or-release from the D11 table, then keeps or releases; it renders nothing. */
import type { BackendOutcome } from '../backend';
import type { RequestContext } from '../context';
import { D11, type AnswerKind, type Settlement } from '../settlement';

/** Settle an answered (or failed) forward, read as `kind` (stages/record.ts): release unless D11 keeps it. */
export async function settle(
  ctx: RequestContext,
  outcome: BackendOutcome,
  kind: AnswerKind,
): Promise<Settlement> {
  const settlement = D11[kind];
  const { store, logger } = ctx.deps;
  if (settlement.keep) {
    // Not awaited: the answer is not held for it. A crash before it lands lets the sweeper release an answered
    // request (never charge an unanswered one); the shared store batches keeps per event-loop turn.
    if (ctx.ticket !== null)
      store
        .keep(ctx.ticket)
        .catch((err: unknown) => logger.error({ err, requestId: ctx.requestId }, 'keep failed'));
    return settlement;
  }
  if (ctx.ticket !== null) {
    await store
      .release(ctx.ticket)
      .catch((err: unknown) => logger.error({ err, requestId: ctx.requestId }, 'release failed'));
  }
  if (outcome.kind === 'unavailable')
    logger.warn({ reason: outcome.reason, requestId: ctx.requestId }, 'backend unavailable');
  else if (settlement.kind === 'failed' && outcome.kind === 'answer') {
    logger.warn({ status: outcome.status, requestId: ctx.requestId }, 'backend error');
  }
  return settlement;
}
