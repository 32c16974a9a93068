/** The receipt of an Unlimited plan period (rule set B, D31): what was bought (days, from, until) and what was paid. */
import type { PlanPeriod } from '../../gateway/store/plan-periods';
import type { Receipt } from '../../gateway/store/receipts';
import type { ReceiptDoc } from '../receipt-doc';
import { offerPrice } from '../views/unlimited';

const METHODS: Record<string, string> = {
  card: 'Card (Stripe)',
  crypto: 'Crypto (BTCPay Server)',
  test: 'Test payment (demo, nothing charged)',
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The printable receipt of a plan period (`period`: the one the receipt names, when found). */
export function planReceiptDoc(
  r: Receipt,
  base: Pick<ReceiptDoc, 'number' | 'date' | 'issuedAt' | 'seller' | 'billedTo'>,
  period: PlanPeriod | undefined,
): ReceiptDoc {
  const paid = r.paid ? offerPrice(r.paid.minor, r.paid.currency) : '—';
  const rows = [
    { label: 'Item', value: period ? `Unlimited plan, ${period.days} days` : 'Unlimited plan' },
    { label: 'Payment method', value: METHODS[r.method] ?? r.method },
  ];
  if (period) rows.push({ label: 'Period', value: `${day(period.startsAt)} to ${day(period.endsAt)} (UTC)` });
  return {
    ...base,
    title: `Receipt ${r.number}`,
    rows,
    total: { label: 'Total paid', value: r.method === 'test' ? `${paid} (test, not charged)` : paid },
    note: 'Thank you. The plan is not renewed automatically; keep this receipt for your records.',
  };
}
