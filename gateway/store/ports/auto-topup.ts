/** The auto top-up port: settings, the saved card and one attempt per crossing of the threshold (auto-topup.ts). */
import type { AutoTopUpAttempt, AutoTopUpFinish, AutoTopUpOutcome, AutoTopUpSettings } from '../auto-topup';

/** Auto top-up records, in the relational database of either store, shared by every instance. */
export interface AutoTopUpStore {
  /** The account's settings; defaults (off, nothing chosen, no card) when it never saved any. */
  autoTopUp(accountId: string): Promise<AutoTopUpSettings>;
  /**
   * Save the choices; a change of any of them starts a new crossing, turning it on clears the failures. Unknown
   * account → StoreConflict('not_found').
   */
  setAutoTopUp(
    accountId: string,
    enabled: boolean,
    threshold: number | null,
    amount: number | null,
    now: number,
  ): Promise<AutoTopUpSettings>;
  /** Keep the provider's customer of the account; the first one stays. Returns the settings. Unknown → not_found. */
  setAutoTopUpCustomer(accountId: string, customerId: string, now: number): Promise<AutoTopUpSettings>;
  /**
   * A card saved on `customerId` (which must be the account's): a new crossing, no failures. False when the account
   * has another customer (nothing changed).
   */
  saveAutoTopUpCard(
    accountId: string,
    customerId: string,
    paymentMethodId: string,
    cardLabel: string,
    now: number,
  ): Promise<boolean>;
  /** Forget the card and turn auto top-up off. */
  removeAutoTopUpCard(accountId: string, now: number): Promise<void>;
  /** One page of the settings that may charge (on, a card, a threshold and an amount) in account id order. */
  autoTopUpWatch(after: string | null, limit: number): Promise<AutoTopUpSettings[]>;
  /**
   * Claim crossing `seq`: insert its attempt, once, while the settings are at `seq`, on, with a card, and the account
   * has no attempt pending. Atomic across instances: of any number of concurrent claims of one crossing, exactly one
   * gets the attempt; the others get null.
   */
  claimAutoTopUp(accountId: string, seq: number, now: number): Promise<AutoTopUpAttempt | null>;
  /** Start crossing seq + 1, only from `seq` and once its attempt is finished; false otherwise. */
  rearmAutoTopUp(accountId: string, seq: number): Promise<boolean>;
  /** Record the provider's payment of a pending attempt (a crash after it can be finished from the webhook). */
  setAutoTopUpIntent(accountId: string, seq: number, paymentIntent: string): Promise<void>;
  /**
   * Finish a pending attempt and count it (a failure adds one to the failures in a row, and at `maxFailures` turns
   * auto top-up off; a success clears them), in one transaction; `changed` false when it was not pending.
   */
  finishAutoTopUp(
    accountId: string,
    seq: number,
    outcome: AutoTopUpOutcome,
    maxFailures: number,
    now: number,
  ): Promise<AutoTopUpFinish>;
  /** One attempt, or null. */
  autoTopUpAttempt(accountId: string, seq: number): Promise<AutoTopUpAttempt | null>;
  /** Attempts still pending that were claimed before `before` (a process died during them), oldest first. */
  pendingAutoTopUps(before: number, limit: number): Promise<AutoTopUpAttempt[]>;
  /** The account's newest `limit` attempts, newest first. */
  autoTopUpAttempts(accountId: string, limit: number): Promise<AutoTopUpAttempt[]>;
}
