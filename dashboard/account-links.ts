/**
 * One-time account links (issue 15 item 1): a password reset (rule set A), the confirmation of a new e-mail
 * address, the verification of the address at sign-up (A) and the confirmation of an account deletion (B). Signed tokens (jose, HS256) that name their purpose, the account, the address and the account's
 * credential stamp when issued; redeemed once through the store's single-use marks (every instance, every restart),
 * and void as soon as the password or the e-mail changed (the stamp no longer matches).
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../gateway/core/clock';
import type { Account } from '../gateway/store/types';
import type { AccountStore, MarkStore } from '../gateway/store/ports';
import { credentialStamp, type Secrets } from './session';

/** What a link is for. */
export type AccountLinkPurpose = 'password-reset' | 'email-change' | 'email-verify' | 'account-delete';

/** How long each kind of link works. */
export const ACCOUNT_LINK_MINUTES: Record<AccountLinkPurpose, number> = {
  'password-reset': 30,
  'email-change': 24 * 60,
  'email-verify': 24 * 60,
  'account-delete': 30,
};

const AUDIENCE = 'geogate-dashboard-account-link';

/** A valid link's claim. */
export interface AccountLinkClaim {
  purpose: AccountLinkPurpose;
  accountId: string;
  /** The address the link was sent to (for an e-mail change: the new address). */
  email: string;
  /** The account's credential stamp when the link was issued. */
  stamp: string;
  jti: string;
  expiresAt: number;
}

/** Issues, checks and redeems account links. */
export class AccountLinks {
  constructor(
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly store: MarkStore & Pick<AccountStore, 'getAccount'>,
  ) {}

  /** A fresh link token. */
  async issue(purpose: AccountLinkPurpose, accountId: string, email: string, stamp: string): Promise<string> {
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({ purpose, email, st: stamp })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(AUDIENCE)
      .setSubject(accountId)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt(now)
      .setExpirationTime(now + ACCOUNT_LINK_MINUTES[purpose] * 60)
      .sign(this.secrets.jwtKey);
  }

  /** The claim of a valid, unused token of `purpose` (a landing page; does not use it up), or null. */
  async check(token: string, purpose: AccountLinkPurpose): Promise<AccountLinkClaim | null> {
    const claim = await this.verify(token, purpose);
    if (!claim || (await this.store.isConsumed(`account-link:${claim.jti}`, this.clock.now()))) return null;
    return claim;
  }

  /** Use a token once: every later redemption (any instance, any restart) gets null. */
  async redeem(token: string, purpose: AccountLinkPurpose): Promise<AccountLinkClaim | null> {
    const claim = await this.verify(token, purpose);
    if (!claim) return null;
    const first = await this.store.consumeOnce(
      `account-link:${claim.jti}`,
      claim.expiresAt,
      this.clock.now(),
    );
    return first ? claim : null;
  }

  /**
   * Use a token once and return its claim with the account it was issued for, or null when the token is invalid or
   * used, or the account is gone, deleted or no longer has the credentials the link was issued under (its stamp).
   */
  async redeemAccount(
    token: string,
    purpose: AccountLinkPurpose,
  ): Promise<{ claim: AccountLinkClaim; account: Account } | null> {
    const claim = await this.redeem(token, purpose);
    if (!claim) return null;
    const account = await this.store.getAccount(claim.accountId);
    if (!account || account.status === 'deleted') return null;
    return credentialStamp(this.secrets, account) === claim.stamp ? { claim, account } : null;
  }

  private async verify(token: string, purpose: AccountLinkPurpose): Promise<AccountLinkClaim | null> {
    if (token === '' || token.length > 2048) return null;
    try {
      const { payload } = await jwtVerify(token, this.secrets.jwtKey, {
        algorithms: ['HS256'],
        audience: AUDIENCE,
        currentDate: new Date(this.clock.now()),
      });
      const { email, st, jti, exp, sub } = payload;
      if (payload['purpose'] !== purpose) return null;
      if (typeof email !== 'string' || typeof st !== 'string' || typeof sub !== 'string') return null;
      if (typeof jti !== 'string' || !jti || !exp) return null;
      return { purpose, accountId: sub, email, stamp: st, jti, expiresAt: exp * 1000 };
    } catch {
      return null;
    }
  }
}
