/**
 * The Stripe events of auto top-up, on the existing signed webhook: a completed setup-mode Checkout Session saves
 * the card; `payment_intent.succeeded` / `payment_intent.payment_failed` of our off-session PaymentIntents (those
 * whose metadata names a crossing) settle the crossing's attempt, crediting once whichever of the sweep and the
 * webhook comes first. Other setup sessions and PaymentIntents (Checkout top-ups') are left to the caller.
 */
import type Stripe from 'stripe';
import { CROSSING_KEY, SETUP_PURPOSE, type AutoTopUps } from './auto-topup';

/** The webhook's answer to an auto top-up event, or null when the event is not one. */
export async function autoTopUpEvent(
  event: Stripe.Event,
  auto: AutoTopUps | null | undefined,
): Promise<Record<string, unknown> | null> {
  if (event.type === 'checkout.session.completed' && event.data.object.mode === 'setup') {
    const session = event.data.object;
    if (!auto || session.metadata?.['purpose'] !== SETUP_PURPOSE) return { received: true, ignored: 'setup' };
    const r = await auto.cardSetUp(session);
    return { received: true, cardSaved: r.saved };
  }
  if (event.type === 'payment_intent.succeeded' || event.type === 'payment_intent.payment_failed') {
    const pi = event.data.object;
    if (pi.metadata?.[CROSSING_KEY] === undefined) return null;
    if (!auto) return { received: true, ignored: event.type };
    const r = await auto.settle(pi);
    return { received: true, credited: r.credited };
  }
  return null;
}
