/** Calendar-month arithmetic: the accounts service's (gateway/accounts/month.ts), re-exported for the admin API. */
export { addCalendarMonth, daysInMonth } from '../accounts/month';
