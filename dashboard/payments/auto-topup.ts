/**
 * Auto top-up by card (Stripe): the customer saves a card (a Checkout Session in setup mode, which makes a
 * SetupIntent on the account's Stripe Customer), a threshold and an amount. A sweep, off the request path, reads the
 * balances of the accounts that have it on; below the threshold it claims the crossing in the store (one attempt row
 * per crossing: of any number of instances exactly one gets it) and charges the card with one off-session
 * PaymentIntent, its idempotency key the crossing's, then credits with a receipt (ledger ref `stripe:<pi>`, so the
 * API's answer and the `payment_intent.succeeded` webhook credit once between them). A declined card or a bank asking
 * for authentication is told to the customer; after `maxFailures` failures in a row auto top-up turns off.
 */
import Stripe from 'stripe';
import type pino from 'pino';
import type { AccountsService } from '../../gateway/accounts/service';
import type { Clock } from '../../gateway/core/clock';
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { AutoTopUpAttempt, AutoTopUpSettings } from '../../gateway/store/auto-topup';
import type { AccountStore, AutoTopUpStore } from '../../gateway/store/ports';
import type { AutoTopUpConfig, StripeConfig } from '../config';
import { autoTopUpFailedNotice, autoTopUpSucceededNotice, type AutoTopUpNotice } from './auto-topup-notice';

/** Settings read per page of the sweep. */
const WATCH_PAGE = 1_000;
/** A pending attempt older than this was left by a process that stopped during it: it is taken up again. */
export const RECOVER_AFTER_MS = 120_000;
/** Stripe keeps an idempotency key 24 hours: a pending attempt is re-sent under it only within this. */
const IDEMPOTENCY_WINDOW_MS = 23 * 3_600_000;
/** The metadata key naming the crossing on our PaymentIntents (and telling them from Checkout's). */
export const CROSSING_KEY = 'autoTopUpCrossing';
/** What our setup-mode Checkout Sessions and their SetupIntents carry in `metadata.purpose`. */
export const SETUP_PURPOSE = 'auto_topup_card';

/** The Stripe calls auto top-up makes (the library's client; tests point it at a replay server). */
export type AutoTopUpStripe = Pick<
  Stripe,
  'customers' | 'checkout' | 'setupIntents' | 'paymentMethods' | 'paymentIntents'
>;

/** What auto top-up needs. */
export interface AutoTopUpDeps {
  store: AutoTopUpStore & Pick<AccountStore, 'getAccount'>;
  accounts: Pick<AccountsService, 'topUp'>;
  stripe: AutoTopUpStripe;
  cfg: StripeConfig;
  options: AutoTopUpConfig;
  rules: RuleSet;
  clock: Clock;
  logger: pino.Logger;
  publicUrl: string;
  /** Tell the customer (D30's channels, or the dashboard's mail when notifications are not configured). */
  notify(n: AutoTopUpNotice): Promise<void>;
}

/** A card as the page shows it: "visa •••• 4242, expires 12/2034". */
export function cardLabel(pm: Pick<Stripe.PaymentMethod, 'card' | 'type'>): string {
  const c = pm.card;
  if (!c) return pm.type;
  return `${c.brand} •••• ${c.last4}, expires ${String(c.exp_month).padStart(2, '0')}/${c.exp_year}`;
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  typeof v === 'string' ? v : (v?.id ?? null);

/** Auto top-up of one dashboard process. */
export class AutoTopUps {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly d: AutoTopUpDeps) {}

  /** The smallest card charge (whole cents, at least 0.50) in units; throws a message otherwise. */
  checkAmount(units: number): string | null {
    const minor = units / this.d.cfg.unitsPerMinorUnit;
    if (!Number.isInteger(minor)) return 'Card payments need an amount in whole cents';
    if (minor < 50) return 'Card payments start at 0.50';
    return null;
  }

  /**
   * Start saving a card: the account's Stripe Customer (made once: its idempotency key and the store keep the
   * first), then a Checkout Session in setup mode on it; resolves to the hosted page's URL.
   */
  async startCardSetup(account: { id: string; email: string }, formId: string): Promise<string> {
    const { store, stripe, cfg, clock } = this.d;
    let settings = await store.autoTopUp(account.id);
    if (settings.customerId === null) {
      const customer = await stripe.customers.create(
        { email: account.email, metadata: { accountId: account.id } },
        { idempotencyKey: `autotopup-customer:${account.id}` },
      );
      settings = await store.setAutoTopUpCustomer(account.id, customer.id, clock.now());
    }
    const base = this.d.publicUrl.replace(/\/+$/, '');
    const metadata = { accountId: account.id, purpose: SETUP_PURPOSE };
    const session = await stripe.checkout.sessions.create(
      {
        mode: 'setup',
        currency: cfg.priceCurrency,
        customer: settings.customerId as string,
        client_reference_id: account.id,
        metadata,
        setup_intent_data: { metadata, description: 'Card for automatic top-ups' },
        success_url: `${base}/credit/auto-top-up?card=pending`,
        cancel_url: `${base}/credit/auto-top-up?card=cancelled`,
      },
      { idempotencyKey: `autotopup-setup:${account.id}:${formId}` },
    );
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
    return session.url;
  }

  /**
   * A completed setup-mode Checkout Session of ours (signed webhook): read its SetupIntent and the card from Stripe
   * and save the card on the account, when the SetupIntent succeeded on the account's own Customer.
   */
  async cardSetUp(session: Stripe.Checkout.Session): Promise<{ saved: boolean }> {
    const { store, stripe, clock, logger } = this.d;
    const accountId = session.metadata?.['accountId'];
    const setupIntentId = idOf(session.setup_intent);
    if (!accountId || !setupIntentId) return { saved: false };
    const si = await stripe.setupIntents.retrieve(setupIntentId);
    const pmId = idOf(si.payment_method);
    const customer = idOf(si.customer);
    if (si.status !== 'succeeded' || !pmId || !customer || si.metadata?.['accountId'] !== accountId) {
      logger.warn(
        { setupIntent: si.id, status: si.status },
        'auto top-up: card not saved (setup not succeeded)',
      );
      return { saved: false };
    }
    const pm = await stripe.paymentMethods.retrieve(pmId);
    const saved = await store.saveAutoTopUpCard(accountId, customer, pm.id, cardLabel(pm), clock.now());
    if (!saved) logger.warn({ setupIntent: si.id }, 'auto top-up: card of another customer not saved');
    else logger.info({ accountId, setupIntent: si.id }, 'auto top-up: card saved');
    return { saved };
  }

  /** One sweep: every account that may charge, page by page; then attempts a stopped process left pending. */
  async sweepOnce(): Promise<void> {
    const failures: unknown[] = [];
    const attempt = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        failures.push(err);
      }
    };
    for (let after: string | null = null; ;) {
      const page: AutoTopUpSettings[] = await this.d.store.autoTopUpWatch(after, WATCH_PAGE);
      for (const s of page) await attempt(() => this.check(s));
      if (page.length < WATCH_PAGE) break;
      after = (page[page.length - 1] as AutoTopUpSettings).accountId;
    }
    const now = this.d.clock.now();
    for (const a of await this.d.store.pendingAutoTopUps(now - RECOVER_AFTER_MS, 100)) {
      await attempt(() => this.recover(a, now));
    }
    if (failures.length > 0) throw failures[0];
  }

  /**
   * One account: below the threshold with the crossing unclaimed → claim it and charge (the claim is the store's, so
   * only one instance charges); at or above it with the crossing's attempt finished → re-arm the next crossing.
   */
  private async check(s: AutoTopUpSettings): Promise<void> {
    const { store } = this.d;
    if (s.threshold === null) return;
    const account = await store.getAccount(s.accountId);
    if (!account || account.status !== 'active') return;
    if (account.balance < s.threshold) {
      if ((await store.autoTopUpAttempt(s.accountId, s.seq)) !== null) return;
      const claimed = await store.claimAutoTopUp(s.accountId, s.seq, this.d.clock.now());
      if (claimed) await this.charge(s, claimed);
    } else {
      const a = await store.autoTopUpAttempt(s.accountId, s.seq);
      if (a !== null && a.status !== 'pending') await store.rearmAutoTopUp(s.accountId, s.seq);
    }
  }

  /** Charge the saved card for a claimed crossing: one off-session PaymentIntent under the crossing's key. */
  private async charge(s: AutoTopUpSettings, a: AutoTopUpAttempt): Promise<void> {
    const { stripe, cfg, logger } = this.d;
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.create(
        {
          amount: a.units / cfg.unitsPerMinorUnit,
          currency: cfg.priceCurrency,
          customer: s.customerId as string,
          payment_method: s.paymentMethodId as string,
          off_session: true,
          confirm: true,
          description: 'Automatic top-up',
          metadata: { accountId: a.accountId, units: String(a.units), [CROSSING_KEY]: String(a.seq) },
        },
        { idempotencyKey: `autotopup:${a.id}` },
      );
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) {
        // Declined, or the bank wants the customer present (authentication_required): Stripe answers 402 with the
        // PaymentIntent left in requires_payment_method.
        const raw = err.raw as { payment_intent?: { id?: string } };
        await this.fail(a, err.code ?? 'card_error', raw.payment_intent?.id ?? null);
        return;
      }
      if (err instanceof Stripe.errors.StripeIdempotencyError) {
        // The crossing's key was first used with other parameters (the card changed before a retake): Stripe keeps
        // the first request's result; the webhook credits it if it was paid. Closed here, so it is not asked again.
        await this.fail(a, 'idempotency_error', null);
        return;
      }
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode !== 409) {
        // The saved card can no longer be charged (detached, of another customer): asking again cannot help.
        await this.fail(a, err.code ?? 'invalid_request', null);
        return;
      }
      // Anything else (network, Stripe's 5xx, rate limit): the attempt stays pending and is taken up again under the
      // same idempotency key after RECOVER_AFTER_MS; the webhook settles it if Stripe did charge.
      logger.warn(
        { accountId: a.accountId, crossing: a.seq, err: (err as Error).name },
        'auto top-up: charge not confirmed; will retry',
      );
      return;
    }
    await this.settle(pi);
  }

  /** A PaymentIntent of ours as Stripe reports it (API answer or webhook): credit, fail, or wait. */
  async settle(pi: Stripe.PaymentIntent): Promise<{ credited: boolean }> {
    const { store, cfg, logger } = this.d;
    const accountId = pi.metadata?.['accountId'];
    const seq = Number(pi.metadata?.[CROSSING_KEY]);
    const units = Number(pi.metadata?.['units']);
    if (!accountId || !Number.isSafeInteger(seq) || !Number.isSafeInteger(units) || units <= 0) {
      return { credited: false };
    }
    const a = { id: `${accountId}:${seq}`, accountId, seq, units };
    if (pi.status === 'succeeded') {
      if (pi.amount_received !== units / cfg.unitsPerMinorUnit || pi.currency !== cfg.priceCurrency) {
        logger.warn(
          { paymentIntent: pi.id },
          'auto top-up: paid amount differs from the units; not credited',
        );
        return { credited: false };
      }
      const r = await this.d.accounts.topUp(accountId, units, `stripe:${pi.id}`, undefined, {
        method: 'card',
        paid: { minor: pi.amount_received, currency: cfg.priceCurrency.toUpperCase() },
        paymentRef: pi.id,
      });
      const done = await store.finishAutoTopUp(
        accountId,
        seq,
        { status: 'succeeded', paymentIntent: pi.id, error: null },
        this.d.options.maxFailures,
        this.d.clock.now(),
      );
      logger.info(
        { accountId, crossing: seq, paymentIntent: pi.id, receipt: r.receipt?.number, replayed: r.replayed },
        'auto top-up: credited',
      );
      // The credit brought the balance back to the threshold: the next crossing is armed now, not when a sweep
      // happens to see the balance above it, since traffic may spend it below again before any sweep runs and that
      // crossing would then never be charged. (A credit that leaves the balance below keeps the crossing closed: the
      // sweep re-arms once it sees the balance above, e.g. after a manual top-up.)
      const settings = await store.autoTopUp(accountId);
      if (settings.seq === seq && settings.threshold !== null && r.balance >= settings.threshold)
        await store.rearmAutoTopUp(accountId, seq);
      // Told once: by whoever finished the attempt (the sweep's answer or the webhook, whichever came first).
      if (done.changed) {
        await this.tell(
          autoTopUpSucceededNotice(this.d.rules, accountId, seq, units, r.balance, r.receipt?.number ?? null),
        );
      }
      return { credited: !r.replayed };
    }
    if (pi.status === 'requires_action') {
      await this.fail(a, 'authentication_required', pi.id);
    } else if (pi.status === 'requires_payment_method' || pi.status === 'canceled') {
      await this.fail(a, pi.last_payment_error?.code ?? 'payment_failed', pi.id);
    } else {
      // processing (or another in-between state): the webhook finishes it.
      await store.setAutoTopUpIntent(accountId, seq, pi.id);
    }
    return { credited: false };
  }

  /** A failed charge: counted once (the store's conditional finish), told to the customer. */
  private async fail(
    a: { accountId: string; seq: number; units: number },
    code: string,
    paymentIntent: string | null,
  ): Promise<void> {
    const { store, options, clock, logger } = this.d;
    const error = code.slice(0, 60);
    const r = await store.finishAutoTopUp(
      a.accountId,
      a.seq,
      { status: 'failed', paymentIntent, error },
      options.maxFailures,
      clock.now(),
    );
    if (!r.changed) return;
    logger.warn(
      { accountId: a.accountId, crossing: a.seq, error, failures: r.failures, switchedOff: r.switchedOff },
      'auto top-up: charge failed',
    );
    await this.tell(
      autoTopUpFailedNotice(this.d.rules, a.accountId, a.seq, a.units, error, r.failures, r.switchedOff),
    );
  }

  /**
   * An attempt left pending by a process that stopped during it: ask Stripe again under the same idempotency key
   * (Stripe answers the first request's result, so the card is charged once) or read its PaymentIntent; beyond the
   * key's lifetime it is closed as failed (`unconfirmed`), the webhook having had a day to settle it.
   */
  private async recover(a: AutoTopUpAttempt, now: number): Promise<void> {
    if (a.paymentIntent !== null) {
      await this.settle(await this.d.stripe.paymentIntents.retrieve(a.paymentIntent));
      return;
    }
    if (now - a.createdAt > IDEMPOTENCY_WINDOW_MS) {
      await this.fail(a, 'unconfirmed', null);
      return;
    }
    const s = await this.d.store.autoTopUp(a.accountId);
    if (s.customerId === null || s.paymentMethodId === null) {
      await this.fail(a, 'card_removed', null);
      return;
    }
    await this.charge(s, a);
  }

  private async tell(n: AutoTopUpNotice): Promise<void> {
    try {
      await this.d.notify(n);
    } catch (err) {
      this.d.logger.warn({ err: (err as Error).message }, 'auto top-up: the customer could not be told');
    }
  }

  /** One sweep now (also run by the timer); a sweep in progress is joined, not doubled. */
  sweep(): Promise<void> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = this.sweepOnce()
      .catch((err: unknown) =>
        this.d.logger.warn({ err: (err as Error).message }, 'auto top-up: sweep failed'),
      )
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /** Sweep every `intervalMs`. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.d.options.intervalMs);
    this.timer.unref();
  }

  /** Stop the timer and wait for the sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }
}
