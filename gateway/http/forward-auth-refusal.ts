/**
 * D38: a refusal carried through a proxy that cannot pass it on. nginx's `auth_request` lets only 2xx, 401 and 403
 * through (anything else becomes its own 500) and drops the body, so a proxy that asks for it (X-Geogate-Deny-Status)
 * gets its deny status plus the refusal sealed in X-Geogate-Refusal; its error page sends that back to
 * /v1/refusal, which answers it as it was rendered: status, headers and body. The seal (HMAC-SHA-256 under a key
 * derived from the key pepper, so every process and instance of a deployment shares it) makes /v1/refusal answer
 * only what this deployment rendered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AdapterResponse } from '../../adapters/types';

/** A refusal as the client should see it. */
export interface SealedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Seals and opens refusals under one deployment's key. */
export class RefusalSeal {
  private readonly key: Buffer;

  constructor(keyPepper: string) {
    this.key = createHmac('sha256', keyPepper).update('geogate forward-auth refusal seal').digest();
  }

  /** The header value for an answer: base64url JSON, ".", base64url MAC. */
  seal(answer: AdapterResponse, headers: Readonly<Record<string, string>>): string {
    const all: Record<string, string> = {};
    for (const k in answer.headers) all[k] = answer.headers[k] as string;
    for (const k in headers) all[k] = headers[k] as string;
    const payload = Buffer.from(
      JSON.stringify({ s: answer.status, h: all, b: answer.body }),
      'utf8',
    ).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The answer a sealed value carries, or null when it is not one this deployment sealed. */
  open(value: string): SealedAnswer | null {
    const dot = value.indexOf('.');
    if (dot <= 0) return null;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const want = Buffer.from(this.mac(payload), 'base64url');
    if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      s: number;
      h: Record<string, string>;
      b: string;
    };
    return { status: parsed.s, headers: parsed.h, body: parsed.b };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
