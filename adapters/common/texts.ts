/**
 * Provider texts that clients read (issue 9 item 5, issue 16 item 2). The gateway's public message for a code comes
 * from one table (gateway/core/errors.ts MESSAGES, plus what the refusal knows); where a provider's clients detect
 * an error by its text (Geocodio's "above your daily maximum", ...), the adapter's D24 table text replaces it, and
 * the gateway's message may follow it in the same free-text field. Each adapter lists those rows in `*_TEXTS`.
 */
import type { GatewayCode } from '../../gateway/core/errors';

/** A table text that replaces the gateway's message: alone, or followed by it (`appended`). */
export interface ClientText {
  text: string;
  gateway: 'replaced' | 'appended';
}

/** The codes whose provider text wins on one host. */
export type ClientTexts = Readonly<Partial<Record<GatewayCode, ClientText>>>;

/** Picks `field` of the named rows of a D24 table as client texts, so the text lives in one place: the table. */
export function textsFrom<R, F extends keyof R>(
  table: { readonly [C in GatewayCode]: R },
  field: F,
  rules: Partial<Record<GatewayCode, ClientText['gateway']>>,
): ClientTexts {
  const out: Partial<Record<GatewayCode, ClientText>> = {};
  for (const [code, gateway] of Object.entries(rules) as [GatewayCode, ClientText['gateway']][]) {
    out[code] = { text: String(table[code][field]), gateway };
  }
  return out;
}

/** The public text of a refusal on a host: the provider's text where its clients read it, else the gateway's. */
export function publicMessage(texts: ClientTexts | undefined, code: GatewayCode, message: string): string {
  const t = texts?.[code];
  if (t === undefined) return message;
  if (t.gateway === 'replaced' || message === '' || message === t.text) return t.text;
  return `${t.text} ${message}`;
}
