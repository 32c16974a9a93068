/**
 * Rule set B's one-time sign-in links: signed tokens, 15 minutes, single use. Used link ids are marked in the
 * store (MarkStore.consumeOnce), so a link works once across restarts and across every instance on one store.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../gateway/core/clock';
import type { MarkStore } from '../gateway/store/ports';
import type { Secrets } from './session';

export const LINK_MINUTES = 15;
const AUDIENCE = 'geogate-dashboard-link';

/** What a link proves: control of this mailbox, for signing in (or creating the account when `signup`). */
export interface LinkClaim {
  email: string;
  signup: boolean;
  jti: string;
  expiresAt: number;
}

/** The store's single-use id of a link: "link:" + its jti. */
export function linkMark(jti: string): string {
  return `link:${jti}`;
}

/** Issues and redeems links. */
export class MagicLinks {
  constructor(
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly store: MarkStore,
  ) {}

  /** A fresh link token. */
  async issue(email: string, signup: boolean): Promise<string> {
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({ email, signup })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(AUDIENCE)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt(now)
      .setExpirationTime(now + LINK_MINUTES * 60)
      .sign(this.secrets.jwtKey);
  }

  /** The claim of a valid token not yet used (the confirmation page; does not consume it), or null. */
  async check(token: string): Promise<LinkClaim | null> {
    const claim = await this.verify(token);
    if (!claim || (await this.store.isConsumed(linkMark(claim.jti), this.clock.now()))) return null;
    return claim;
  }

  /** Redeem a token once: every later redemption of the same token (any instance, any restart) gets null. */
  async redeem(token: string): Promise<LinkClaim | null> {
    const claim = await this.verify(token);
    if (!claim) return null;
    const first = await this.store.consumeOnce(linkMark(claim.jti), claim.expiresAt, this.clock.now());
    return first ? claim : null;
  }

  /** The claim of a token with a valid signature, audience and expiry (used or not), or null. */
  private async verify(token: string): Promise<LinkClaim | null> {
    try {
      const { payload } = await jwtVerify(token, this.secrets.jwtKey, {
        algorithms: ['HS256'],
        audience: AUDIENCE,
        currentDate: new Date(this.clock.now()),
      });
      const { email, signup, jti, exp } = payload;
      if (typeof email !== 'string' || typeof signup !== 'boolean' || typeof jti !== 'string' || !jti || !exp)
        return null;
      return { email, signup, jti, expiresAt: exp * 1000 };
    } catch {
      return null;
    }
  }
}
