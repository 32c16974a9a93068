/**
 * Stage: a bulk call (ipstack `/{ip1},{ip2}`, ipinfo `POST /batch`), chosen after parse so single requests never
 * come here. The call is one admission of one unit per lookup, all or none (D10, types.ts `Store.admit`); then each
 * lookup is forwarded in turn, in a child context of its own, and its unit kept or released by D11 alone, and the N
 * answers rendered as one by the adapter (docs/decisions.md, "Bulk calls").
 */
import { publicMessage } from '../../../adapters/common/texts';
import type { BulkAnswer, BulkRequest, AdapterResponse } from '../../../adapters/types';
import type { GatewayCode } from '../../core/errors';
import type { Ticket } from '../../store/types';
import type { RequestContext, Refusal } from '../context';
import type { Settlement } from '../settlement';
import { admitUnits } from './count';
import { forwardRequest } from './forward';
import { readAnswer } from './record';
import { fail, send } from './render';
import { keepTicket, releaseTicket, settle } from './settle';

type Item = BulkRequest['items'][number];

/** Serve a bulk call; a refusal (of the whole call) is returned, a store fault thrown. */
export async function serveBulk(ctx: RequestContext, bulk: BulkRequest): Promise<Refusal | null> {
  const items = bulk.items;
  const refusal = await admitUnits(ctx, items.length);
  if (refusal !== null) return refusal;
  const plan = ctx.ticket;
  // One ticket per lookup (a call of one lookup: the plan's own); none when served uncounted.
  const units = plan === null ? null : (plan.units ?? [plan]);
  const answers: BulkAnswer[] = [];
  let failure: Settlement | null = null;
  let kept = 0;
  for (let i = 0; i < items.length; i++) {
    const item = itemContext(ctx, items[i] as Item, units?.[i] ?? null);
    const outcome = await forwardRequest(item);
    const { kind, record } = readAnswer(item, outcome);
    const settlement = await settle(item, outcome, kind);
    if (settlement.reply === null) {
      // The client left: nothing more is delivered, so the lookups not yet made are released too (D11).
      for (const t of units?.slice(i + 1) ?? []) await releaseTicket(ctx, t);
      await settleShared(ctx, plan, kept);
      return null;
    }
    if (settlement.keep) kept++;
    else failure ??= settlement;
    answers.push({
      key: (items[i] as Item).key,
      answer: record ?? itemError(item, settlement.reply, settlement.detail),
    });
  }
  await settleShared(ctx, plan, kept);
  // Nothing was answered (every lookup failed): the call fails as a single lookup would, nothing charged.
  if (kept === 0 && failure !== null && failure.reply !== null && failure.reply !== 'record') {
    fail(ctx, failure.reply, failure.detail, {}, ctx.quota);
    return null;
  }
  const bulkEndpoints = ctx.host.adapter.bulk;
  if (bulkEndpoints !== undefined) send(ctx, bulkEndpoints.render(bulk.state, answers), ctx.quota);
  return null;
}

/** A lookup's own context: the call's, with the lookup's backend call, adapter state and unit ticket. */
function itemContext(ctx: RequestContext, item: Item, ticket: Ticket | null): RequestContext {
  const child = Object.create(ctx) as RequestContext;
  child.call = item.call;
  child.state = item.state;
  child.ticket = ticket;
  return child;
}

/**
 * Once every unit is settled, what they share (the slot a new address took): kept when some lookup was answered,
 * released when none was. A call of one lookup has nothing more to settle.
 */
async function settleShared(ctx: RequestContext, plan: Ticket | null, kept: number): Promise<void> {
  if (plan === null || plan.units === undefined) return;
  if (kept > 0) keepTicket(ctx, plan);
  else await releaseTicket(ctx, plan);
}

/** One lookup's error, as the host renders that refusal for a single request. */
function itemError(ctx: RequestContext, reply: 'record' | GatewayCode, detail: string): AdapterResponse {
  const adapter = ctx.host.adapter;
  const code: GatewayCode = reply === 'record' ? 'backend_unavailable' : reply;
  return adapter.renderError(ctx.state, code, publicMessage(adapter.clientTexts, code, detail), {});
}
