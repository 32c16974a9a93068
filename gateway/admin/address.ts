/** Whitelist addresses for the admin API: the accounts service's rule, its refusals as 400 problems. */
import { normaliseWhitelistAddress as normalise } from '../accounts/address';
import { asProblem } from './input';

/** Validate and normalise a whitelist address to a CIDR; a refusal is a 400 naming `address`. */
export function normaliseWhitelistAddress(input: string, minIpv6Prefix: number): string {
  return asProblem(() => normalise(input, minIpv6Prefix));
}
