import { opencage, OPENCAGE_ERRORS } from '../../../adapters/opencage';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, NEW_YORK, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const PATH = '/geocode/v1/json';

describe('opencage adapter: request translation', () => {
  it.each([
    'q=48.8584,2.2945',
    'q=48.8584%2C+2.2945',
    'q=48.8584+2.2945&key=K',
    'q=48.8584%202.2945&no_annotations=1',
  ])('reads q from %s', (query) => {
    expect(parsed(opencage.parse(req(PATH, query))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });

  // q=Paris is a forward lookup since issue 11 (opencage-forward rows in forward-adapters.test.ts).
  it.each(['q=48.8584', 'q=91,2', '', 'q=1,2&q=3,4'])('refuses %s naming q', (query) => {
    expect(refused(opencage.parse(req(PATH, query)))).toEqual({ code: 'invalid_parameter', parameter: 'q' });
  });

  it('answers null for other paths and reads key as query:key', () => {
    expect(opencage.parse(req('/geocode/v1/xml', 'q=1,2'))).toBeNull();
    expect(opencage.providerCredentials(req(PATH, `q=1,2&key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
  });
});

describe('opencage adapter: success rendering', () => {
  it('renders the envelope and the components node-geocoder reads', () => {
    const state = parsed(opencage.parse(req(PATH, 'q=48.8584,2.2945'))).state;
    const b = body(opencage.renderReverse(state, PARIS));
    expect(b.status).toEqual({ code: 200, message: 'OK' });
    expect(b.total_results).toBe(1);
    expect(b.licenses).toEqual([{ name: PARIS.attribution }]);
    const r = b.results[0];
    expect(r.geometry).toEqual({ lat: 48.85341, lng: 2.3488 });
    expect(r.formatted).toBe(PARIS.displayName);
    expect(r.components).toMatchObject({
      city: 'Paris',
      state: 'Île-de-France',
      country: 'France',
      country_code: 'fr',
    });
    expect(r.components['ISO_3166-1_alpha-3']).toBe('FRA');
    expect(r.annotations.timezone.name).toBe('Europe/Paris');
  });

  it('drops annotations with no_annotations=1 and shows a letter state code', () => {
    const state = parsed(opencage.parse(req(PATH, 'q=1,2&no_annotations=1'))).state;
    const r = body(opencage.renderReverse(state, NEW_YORK)).results[0];
    expect(r.annotations).toBeUndefined();
    expect(r.components.state_code).toBe('NY');
  });

  it('answers total_results 0 over open sea', () => {
    expect(body(opencage.renderReverse({ annotations: true }, OPEN_SEA))).toMatchObject({
      results: [],
      total_results: 0,
    });
  });
});

describe('opencage adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))(
    'renders %s in the envelope with status.code = HTTP status',
    (code) => {
      const row = OPENCAGE_ERRORS[code];
      const res = opencage.renderError(null, code, 'the detail', {});
      expect(res.status).toBe(row.status);
      expect(body(res)).toMatchObject({
        results: [],
        total_results: 0,
        status: { code: row.status, message: `${row.message}: the detail` },
      });
    },
  );

  it('uses 401 for unknown keys, 402 for quota and credits, 403 for disabled keys', () => {
    expect([
      OPENCAGE_ERRORS.invalid_key.status,
      OPENCAGE_ERRORS.quota_exceeded.status,
      OPENCAGE_ERRORS.key_revoked.status,
    ]).toEqual([401, 402, 403]);
    const none = opencage.renderError({ annotations: true }, 'not_found', '', {});
    expect([none.status, body(none).total_results]).toEqual([200, 0]);
  });
});
