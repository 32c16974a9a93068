/** The payment-provider interface behind top-ups. */
import type { Actor } from '../../gateway/accounts/audit';

/** What a top-up asks a provider to do. */
export interface TopUpRequest {
  accountId: string;
  email: string;
  /** Money units (A: 0.0001 EUR; B: credits) the account receives when paid. */
  units: number;
  /** Idempotency key chosen when the form was shown, so a double submission credits once. */
  idempotencyKey: string;
  /** Who asked, for the audit line of a top-up credited at once (issue 14 item 2). */
  actor?: Actor | undefined;
}

/** What happens next: done now (test provider) or the customer is sent to a hosted payment page. */
export type TopUpResult =
  | { kind: 'credited'; balance: number; /** The top-up's receipt number (D31). */ receipt?: string }
  | { kind: 'redirect'; url: string };

/** A payment provider. */
export interface PaymentProvider {
  readonly name: 'test' | 'stripe' | 'none' | 'btcpay';
  /** Check an amount before starting (e.g. card payments need whole cents); throws a field error. */
  checkAmount(units: number): void;
  startTopUp(req: TopUpRequest): Promise<TopUpResult>;
}
