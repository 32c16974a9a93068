/** Account passwords: the accounts service's (gateway/accounts/password.ts), re-exported for the admin API. */
export { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../accounts/password';
