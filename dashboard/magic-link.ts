/** Rule set B's one-time sign-in links: signed tokens, 15 minutes, single use (used ids remembered until expiry). */
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../gateway/core/clock';
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

/** Issues and redeems links. Used ids live in memory until their expiry (docs/decisions.md). */
export class MagicLinks {
  private readonly used = new Map<string, number>();
  constructor(
    private readonly secrets: Secrets,
    private readonly clock: Clock,
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

  /** The claim of a valid, unused token (not yet consumed), or null. */
  async check(token: string): Promise<LinkClaim | null> {
    try {
      const { payload } = await jwtVerify(token, this.secrets.jwtKey, {
        algorithms: ['HS256'],
        audience: AUDIENCE,
        currentDate: new Date(this.clock.now()),
      });
      const { email, signup, jti, exp } = payload;
      if (typeof email !== 'string' || typeof signup !== 'boolean' || typeof jti !== 'string' || !exp)
        return null;
      if (this.used.has(jti)) return null;
      return { email, signup, jti, expiresAt: exp * 1000 };
    } catch {
      return null;
    }
  }

  /** Redeem a token once: the second redemption of the same token gets null. */
  async redeem(token: string): Promise<LinkClaim | null> {
    const claim = await this.check(token);
    if (!claim || this.used.has(claim.jti)) return null;
    this.prune();
    this.used.set(claim.jti, claim.expiresAt);
    return claim;
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [jti, exp] of this.used) if (exp <= now) this.used.delete(jti);
  }
}
