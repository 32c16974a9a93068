/**
 * Issue 9 item 5 / issue 16 item 2: one table of public messages (core/errors.ts MESSAGES); an adapter's table text
 * replaces it where the provider's clients read it (`clientTexts`), and every such text comes from the adapter's table.
 */
import { ADAPTERS } from '../../../adapters';
import { publicMessage } from '../../../adapters/common/texts';
import { GEOCODIO_ERRORS, GEOCODIO_TEXTS } from '../../../adapters/geocodio';
import { GOOGLE_ERRORS, GOOGLE_TEXTS } from '../../../adapters/google';
import { TOMTOM_TEXTS } from '../../../adapters/tomtom';
import type { Adapter } from '../../../adapters/types';
import { ALL_GATEWAY_CODES, MESSAGES } from '../../../gateway/core/errors';
import { body } from './fixtures';

const adapters = Object.values(ADAPTERS) as Adapter<unknown>[];
/** geopy geocodio.py:224-227: the snippet that makes a 403 a GeocoderQuotaExceeded. */
const GEOCODIO_QUOTA = "You can't make this request as it is above your daily maximum.";

describe('one table of public messages', () => {
  it('has a non-empty text for every gateway code', () => {
    for (const code of ALL_GATEWAY_CODES) expect(MESSAGES[code].length).toBeGreaterThan(10);
  });

  it('passes the gateway message through on hosts whose clients read no provider text', () => {
    for (const a of adapters.filter((x) => x.clientTexts === undefined)) {
      for (const code of ALL_GATEWAY_CODES)
        expect(publicMessage(a.clientTexts, code, MESSAGES[code])).toBe(MESSAGES[code]);
    }
  });
});

describe('provider texts clients read (issue 16 item 2)', () => {
  it('leads the Geocodio daily-maximum refusals with the sentence geopy detects, then the gateway detail', () => {
    for (const code of ['quota_exceeded', 'no_credits'] as const) {
      expect(GEOCODIO_TEXTS[code]?.text).toBe(GEOCODIO_ERRORS[code].error);
      const text = publicMessage(GEOCODIO_TEXTS, code, MESSAGES[code]);
      expect(text).toBe(`${GEOCODIO_QUOTA} ${MESSAGES[code]}`);
      const rendered = body(ADAPTERS['geocodio']!.renderError({}, code, text, {}));
      expect(rendered.error).toContain(GEOCODIO_QUOTA);
    }
    expect(publicMessage(GEOCODIO_TEXTS, 'invalid_key', MESSAGES.invalid_key)).toBe(MESSAGES.invalid_key);
  });

  it("shows Google's own sentences in error_message (the no_credits text now reaches clients)", () => {
    expect(publicMessage(GOOGLE_TEXTS, 'no_credits', MESSAGES.no_credits)).toBe(
      GOOGLE_ERRORS.no_credits.message,
    );
    expect(publicMessage(GOOGLE_TEXTS, 'invalid_key', MESSAGES.invalid_key)).toBe(
      GOOGLE_ERRORS.invalid_key.message,
    );
    const slot =
      'All 2 IP slots of this key are held by other addresses; the next slot frees at 2026-11-23T00:00:05.000Z.';
    expect(publicMessage(GOOGLE_TEXTS, 'key_ip_limit', slot)).toBe(
      `${GOOGLE_ERRORS.key_ip_limit.message} ${slot}`,
    );
    expect(publicMessage(GOOGLE_TEXTS, 'invalid_parameter', 'latlng is required')).toBe('latlng is required');
  });

  it('leads TomTom allowance refusals with "Developer Over Qps" (geopy tomtom.py:226)', () => {
    expect(publicMessage(TOMTOM_TEXTS, 'quota_exceeded', MESSAGES.quota_exceeded)).toMatch(
      /^Developer Over Qps /,
    );
    const res = ADAPTERS['tomtom']!.renderError(
      {},
      'quota_exceeded',
      publicMessage(TOMTOM_TEXTS, 'quota_exceeded', 'x'),
      {},
    );
    expect(res.body).toContain('Developer Over Qps');
  });

  it('never repeats the table text when the gateway passes none or the same text', () => {
    expect(publicMessage(GEOCODIO_TEXTS, 'quota_exceeded', '')).toBe(GEOCODIO_QUOTA);
    expect(publicMessage(GEOCODIO_TEXTS, 'quota_exceeded', GEOCODIO_QUOTA)).toBe(GEOCODIO_QUOTA);
  });

  it('declares client texts only for codes of the gateway, each with a text', () => {
    for (const a of adapters) {
      for (const [code, t] of Object.entries(a.clientTexts ?? {})) {
        expect(ALL_GATEWAY_CODES).toContain(code);
        expect(t?.text.length).toBeGreaterThan(0);
      }
    }
  });
});
