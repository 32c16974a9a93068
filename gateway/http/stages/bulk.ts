/**
 * Stage: a bulk call (ipstack `/{ip1},{ip2}`, ipinfo `POST /batch`), chosen after parse so single requests never
 * come here. Each lookup is one request: admitted one by one and, when one is refused, the ones admitted are released
 * and the refusal answered, so a refused call changes nothing (D10); then forwarded one after the other, each kept or
 * released by D11 alone, and the N answers rendered as one by the adapter (docs/decisions.md, "Bulk calls").
 */
import { publicMessage } from '../../../adapters/common/texts';
import type { BulkAnswer, BulkRequest, AdapterResponse } from '../../../adapters/types';
import type { GatewayCode } from '../../core/errors';
import type { AdmissionResult, Ticket } from '../../store/types';
import { quotaHeaders, type Quota } from '../headers';
import type { RequestContext, Refusal } from '../context';
import { StoreFault } from '../fault';
import type { Settlement } from '../settlement';
import { admitRequest } from './admit';
import { locateClient } from './client-address';
import { findRequestCredential } from './credential';
import { forwardRequest } from './forward';
import { identifyCaller } from './identify';
import { readAnswer } from './record';
import { fail, send } from './render';
import { settle } from './settle';

/** Serve a bulk call; a refusal (of the whole call) is returned, a store fault thrown. */
export async function serveBulk(ctx: RequestContext, bulk: BulkRequest): Promise<Refusal | null> {
  const refusal = locateClient(ctx) ?? findRequestCredential(ctx);
  if (refusal !== null) return refusal;
  const tickets = await countAll(ctx, bulk.items.length);
  if (!Array.isArray(tickets)) return tickets;
  const answers: BulkAnswer[] = [];
  let failure: Settlement | null = null;
  let kept = 0;
  for (let i = 0; i < bulk.items.length; i++) {
    const item = bulk.items[i] as BulkRequest['items'][number];
    ctx.call = item.call;
    ctx.state = item.state;
    ctx.ticket = tickets[i] ?? null;
    const outcome = await forwardRequest(ctx);
    const { kind, record } = readAnswer(ctx, outcome);
    const settlement = await settle(ctx, outcome, kind);
    if (settlement.reply === null) {
      // The client left: nothing more is delivered, so the lookups not yet made are released too (D11).
      await releaseAll(ctx, tickets.slice(i + 1));
      return null;
    }
    if (settlement.keep) kept++;
    else failure ??= settlement;
    answers.push({ key: item.key, answer: record ?? itemError(ctx, settlement.reply, settlement.detail) });
  }
  ctx.state = bulk.state;
  // Nothing was answered (every lookup failed): the call fails as a single lookup would, nothing charged.
  if (kept === 0 && failure !== null && failure.reply !== null && failure.reply !== 'record') {
    fail(ctx, failure.reply, failure.detail, {}, ctx.quota);
    return null;
  }
  const bulkEndpoints = ctx.host.adapter.bulk;
  if (bulkEndpoints !== undefined) send(ctx, bulkEndpoints.render(bulk.state, answers), ctx.quota);
  return null;
}

/** One lookup's error, as the host renders that refusal for a single request. */
function itemError(ctx: RequestContext, reply: 'record' | GatewayCode, detail: string): AdapterResponse {
  const adapter = ctx.host.adapter;
  const code: GatewayCode = reply === 'record' ? 'backend_unavailable' : reply;
  return adapter.renderError(ctx.state, code, publicMessage(adapter.clientTexts, code, detail), {});
}

/**
 * Identify, then admit `n` units one by one; a refusal releases the units admitted before it and is returned. An
 * unreachable store under onStoreFailure: open serves the call uncounted (no tickets), as for a single request.
 */
export async function countAll(ctx: RequestContext, n: number): Promise<(Ticket | null)[] | Refusal> {
  const tickets: (Ticket | null)[] = [];
  let free = 0;
  let refusedQuota: Quota | null = null;
  const seen = (result: AdmissionResult): void => {
    if (result.admitted && !result.billed) free++;
    if (!result.admitted) refusedQuota = result.quota;
  };
  try {
    const refused = await identifyCaller(ctx);
    if (refused !== null) return refused;
    for (let i = 0; i < n; i++) {
      const refusal = await admitRequest(ctx, seen);
      if (refusal !== null) {
        await releaseAll(ctx, tickets);
        return afterRelease(ctx, refusal, refusedQuota, free);
      }
      tickets.push(ctx.ticket);
      ctx.ticket = null;
    }
    return tickets;
  } catch (err) {
    await releaseAll(ctx, tickets);
    if (!(err instanceof StoreFault) || ctx.deps.config.onStoreFailure !== 'open') throw err;
    ctx.deps.logger.warn(
      { err: err.message, requestId: ctx.requestId },
      'store unavailable: serving uncounted (onStoreFailure: open)',
    );
    return [];
  }
}

/**
 * The refusal with its quota headers as they are once the call's earlier admissions are released: each free one had
 * incremented every free counter (D5), so the counter shown has `free` fewer used. (A refusal after some admissions
 * is a quota or credit refusal, never an Unlimited key's, whose admissions count nothing.)
 */
function afterRelease(ctx: RequestContext, refusal: Refusal, quota: Quota | null, free: number): Refusal {
  if (quota === null || free === 0) return refusal;
  const { rules } = ctx.deps.config;
  const used = Math.max(0, quota.used - free);
  const exceeded = refusal.code === 'quota_exceeded';
  return {
    ...refusal,
    headers: quotaHeaders(rules, { used, limit: quota.limit }, ctx.deps.clock.now(), exceeded),
  };
}

/** Release admissions that will not be answered (a refusal later in the call, or a client that left). */
export async function releaseAll(ctx: RequestContext, tickets: readonly (Ticket | null)[]): Promise<void> {
  const { store, logger } = ctx.deps;
  for (const ticket of tickets) {
    if (ticket !== null) {
      await store
        .release(ticket)
        .catch((err: unknown) => logger.error({ err, requestId: ctx.requestId }, 'release failed'));
    }
  }
}
