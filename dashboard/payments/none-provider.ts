/** No `dashboard.payments` section (issue 14 item 6): top-ups are refused, the credit page says why. */
import { DashboardError } from '../errors';
import type { PaymentProvider } from './types';

/** The provider of a dashboard without payments: every top-up is refused with 503 payments_not_configured. */
export function noPayments(): PaymentProvider {
  const refuse = (): never => {
    throw new DashboardError('payments_not_configured', 'Payments are not configured on this gateway');
  };
  return {
    name: 'none',
    checkAmount: refuse,
    startTopUp: () =>
      Promise.reject(
        new DashboardError('payments_not_configured', 'Payments are not configured on this gateway'),
      ),
  };
}
