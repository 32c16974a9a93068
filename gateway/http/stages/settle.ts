/** Stage: settle. Decides keep-or-release from the D11 table, then keeps or releases; it renders nothing. */
import type { Ticket } from '../../store/types';
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
  const logger = ctx.deps.logger;
  if (settlement.keep) {
    if (ctx.ticket !== null) keepTicket(ctx, ctx.ticket);
    return settlement;
  }
  if (ctx.ticket !== null) await releaseTicket(ctx, ctx.ticket);
  if (outcome.kind === 'unavailable')
    logger.warn({ reason: outcome.reason, requestId: ctx.requestId }, 'backend unavailable');
  else if (settlement.kind === 'failed' && outcome.kind === 'answer') {
    logger.warn({ status: outcome.status, requestId: ctx.requestId }, 'backend error');
  }
  return settlement;
}

/**
 * Keep an admission (D11). Not awaited: the answer is not held for it. A crash before it lands lets the sweeper
 * release an answered request (never charge an unanswered one); the stores batch keeps per event-loop turn.
 */
export function keepTicket(ctx: RequestContext, ticket: Ticket): void {
  ctx.deps.store
    .keep(ticket)
    .catch((err: unknown) => ctx.deps.logger.error({ err, requestId: ctx.requestId }, 'keep failed'));
}

/** Release an admission (D11); a failure is logged (the store retries or its sweeper releases it). */
export function releaseTicket(ctx: RequestContext, ticket: Ticket): Promise<void> {
  return ctx.deps.store
    .release(ticket)
    .catch((err: unknown) => ctx.deps.logger.error({ err, requestId: ctx.requestId }, 'release failed'));
}
