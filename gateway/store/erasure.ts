/**
 * What an account's deletion erases besides the account row's own fields (issue 15 item 1): the tables of personal
 * data that other features keep per account. Billing details (name, address, VAT id; each receipt keeps its own copy
 * for accounting), alert settings, webhook endpoints (URLs and signing keys) and queued or logged notifications
 * (their targets are the customer's address and URLs), the second factor's sealed secret and recovery code hashes. The ledger, usage and receipts are kept.
 */
export const ERASED_WITH_ACCOUNT = [
  'notification_attempts',
  'notification_deliveries',
  'notification_events',
  'webhook_endpoints',
  'notification_settings',
  'account_billing',
  'account_recovery_codes',
  'account_totp',
] as const;
