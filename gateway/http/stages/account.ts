/**
 * Stage: a provider's account endpoint (issue 16 item 4: LocationIQ `/v1/balance`, ipinfo `/me`, Nominatim
 * `/status`). The caller goes through the same client-address, credential and identify stages as any request (a key
 * is required), then the answer is read from the usage history: nothing is admitted, counted or forwarded.
 */
import type { RequestContext, Refusal } from '../context';
import { accountView } from '../account-call';
import { storeFault } from '../fault';
import { admitUnits } from './count';
import { send } from './render';
import { NO_HEADERS } from '../context';

/** Answer the account endpoint parse found; a refusal is rendered like any other, a store fault is thrown. */
export async function answerAccount(ctx: RequestContext): Promise<Refusal | null> {
  const endpoints = ctx.host.adapter.account;
  const request = ctx.account;
  if (!endpoints || !request) return null;
  if (!request.needsKey) {
    send(ctx, endpoints.render(request.state, null), NO_HEADERS);
    return null;
  }
  // Identified only (a key required), never counted; the answer reads the store, so never served uncounted.
  const refusal = await admitUnits(ctx, 0, false, false);
  if (refusal !== null) return refusal;
  const { config, store, clock } = ctx.deps;
  let view;
  try {
    view = await accountView(
      config.rules,
      store,
      clock.now(),
      ctx.identity,
      ctx.address,
      request.detail === true,
    );
  } catch (err) {
    throw storeFault(err);
  }
  send(ctx, endpoints.render(request.state, view), NO_HEADERS);
  return null;
}
