/**
 * Every connector × every adapter (issue 10 item 2): each recorded answer (test/fixtures/connectors/*, each naming its
 * source) is read by its connector and rendered by every host that renders reverse lookups; the street, house number
 * and postcode land in the provider's own fields (Google address_components route/street_number/postal_code, Mapbox
 * address features, Nominatim road/house_number, ...). Our own backend's records render as before (no street).
 */
import { ADAPTERS } from '../../../adapters';
import type { Adapter, AdapterRequest, BackendCall } from '../../../adapters/types';
import type { ReverseRecord } from '../../../backend/records';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_RECORD } from '../../fixtures/connectors/geogate';
import { NOMINATIM_CITY, NOMINATIM_HOUSE, NOMINATIM_ROAD } from '../../fixtures/connectors/nominatim';
import { PELIAS_ADDRESS } from '../../fixtures/connectors/pelias';
import { PHOTON_CITY, PHOTON_HOUSE } from '../../fixtures/connectors/photon';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Body = any;

/** What a provider's answer shows at street level: street, house number, postcode (undefined: not shown). */
interface Shown {
  street: unknown;
  number: unknown;
  postcode: unknown;
}

const component = (b: Body, type: string): unknown =>
  b.results[0]?.address_components.find((c: Body) => c.types.includes(type))?.long_name;
const ctx = (f: Body, prefix: string): unknown =>
  f.context.find((c: Body) => String(c.id).startsWith(`${prefix}.`))?.text;

/** One request per host (a JSON form) and where its answer shows the street-level fields. */
const HOSTS: Record<string, { request: string; shown: (b: Body) => Shown; placePostcode?: false }> = {
  native: {
    request: '/v1/reverse?lat=1&lon=2',
    // The main host writes null for a field it does not know.
    shown: (b) => ({
      street: b.address.street ?? undefined,
      number: b.address.house_number ?? undefined,
      postcode: b.address.postcode ?? undefined,
    }),
  },
  google: {
    request: '/maps/api/geocode/json?latlng=1,2&key=K',
    shown: (b) => ({
      street: component(b, 'route'),
      number: component(b, 'street_number'),
      postcode: component(b, 'postal_code'),
    }),
  },
  mapbox: {
    // A place feature's context holds the levels above it only (no postcode); an address feature's holds it.
    placePostcode: false,
    request: '/geocoding/v5/mapbox.places/2,1.json?access_token=K',
    shown: (b) => {
      const f = b.features[0];
      const address = f.place_type[0] === 'address';
      return { street: address ? f.text : undefined, number: f.address, postcode: ctx(f, 'postcode') };
    },
  },
  nominatim: {
    request: '/reverse?lat=1&lon=2&format=json',
    shown: (b) => ({ street: b.address.road, number: b.address.house_number, postcode: b.address.postcode }),
  },
  locationiq: {
    request: '/v1/reverse?lat=1&lon=2&format=json&key=K',
    shown: (b) => ({ street: b.address.road, number: b.address.house_number, postcode: b.address.postcode }),
  },
  photon: {
    request: '/reverse?lat=1&lon=2',
    shown: (b) => {
      const p = b.features[0].properties;
      return {
        street: p.street ?? (p.type === 'street' ? p.name : undefined),
        number: p.housenumber,
        postcode: p.postcode,
      };
    },
  },
  pelias: {
    request: '/v1/reverse?point.lat=1&point.lon=2&api_key=K',
    shown: (b) => {
      const p = b.features[0].properties;
      return { street: p.street, number: p.housenumber, postcode: p.postalcode };
    },
  },
  opencage: {
    request: '/geocode/v1/json?q=1,2&key=K',
    shown: (b) => {
      const c = b.results[0].components;
      return { street: c.road, number: c.house_number, postcode: c.postcode };
    },
  },
  geoapify: {
    request: '/v1/geocode/reverse?lat=1&lon=2&format=json&apiKey=K',
    shown: (b) => {
      const r = b.results[0];
      return { street: r.street, number: r.housenumber, postcode: r.postcode };
    },
  },
  here: {
    request: '/v1/revgeocode?at=1,2&apiKey=K',
    shown: (b) => {
      const a = b.items[0].address;
      return { street: a.street, number: a.houseNumber, postcode: a.postalCode };
    },
  },
  tomtom: {
    request: '/search/2/reverseGeocode/1,2.json?key=K',
    shown: (b) => {
      const a = b.addresses[0].address;
      return { street: a.streetName, number: a.streetNumber, postcode: a.postalCode };
    },
  },
  bing: {
    request: '/REST/v1/Locations/1,2?key=K',
    shown: (b) => {
      const a = b.resourceSets[0].resources[0].address;
      // Bing has one address line: "71 Via Guglielmo Marconi".
      const m = typeof a.addressLine === 'string' ? /^(?:(\S+) )?(.+)$/.exec(a.addressLine) : null;
      return { street: a.addressLine, number: m?.[1] ?? undefined, postcode: a.postalCode };
    },
  },
  geocodio: {
    request: '/v1.7/reverse?q=1,2&api_key=K',
    shown: (b) => {
      const c = b.results[0].address_components;
      return { street: c.street, number: c.number, postcode: c.zip };
    },
  },
  positionstack: {
    request: '/v1/reverse?access_key=K&query=1,2',
    shown: (b) => {
      const d = b.data[0];
      return {
        street: d.street ?? undefined,
        number: d.number ?? undefined,
        postcode: d.postal_code ?? undefined,
      };
    },
  },
};

const ANSWERS = {
  'nominatim: house (Reverse.md)': ['nominatim', NOMINATIM_HOUSE],
  'nominatim: road (Reverse.md jsonv2)': ['nominatim', NOMINATIM_ROAD],
  'nominatim: city (Output.md)': ['nominatim', NOMINATIM_CITY],
  'photon: house (README)': ['photon', PHOTON_HOUSE],
  'photon: city (README)': ['photon', PHOTON_CITY],
  'pelias: address (response.md)': ['pelias', PELIAS_ADDRESS],
} as const;

function request(url: string): AdapterRequest {
  const q = url.indexOf('?');
  return { method: 'GET', path: url.slice(0, q), query: url.slice(q + 1), headers: {} };
}

/** The connector's record of a recorded answer. */
function recordOf(
  kind: keyof typeof CONNECTORS,
  fixture: { query: { lat: number; lon: number }; body: unknown },
) {
  const call: BackendCall = { kind: 'reverse', ...fixture.query };
  const reading = CONNECTORS[kind].read(call, 200, Buffer.from(JSON.stringify(fixture.body)));
  if (reading.kind !== 'record') throw new Error(`${kind}: not a record`);
  return reading.record as ReverseRecord;
}

/** Render a record on a host; the parsed state comes from the host's own request. */
function render(host: string, record: ReverseRecord): { status: number; body: Body } {
  const adapter = ADAPTERS[host] as Adapter<unknown>;
  const parsed = adapter.parse(request(HOSTS[host]!.request));
  if (parsed === null || !parsed.ok) throw new Error(`${host}: the request did not parse`);
  const answer = adapter.renderReverse(parsed.request.state, record);
  return { status: answer.status, body: JSON.parse(answer.body) };
}

const reverseHosts = Object.keys(ADAPTERS).filter((n) => n !== 'ipinfo' && n !== 'ipstack');

test('the table covers every adapter that renders reverse lookups', () => {
  expect(Object.keys(HOSTS).sort()).toEqual(reverseHosts.sort());
});

const cases = Object.entries(ANSWERS).flatMap(([name, [kind, fixture]]) =>
  Object.keys(HOSTS).map((host) => [name, host, kind, fixture] as const),
);

test.each(cases)('%s on %s', (_name, host, kind, fixture) => {
  const r = recordOf(kind, fixture);
  const { status, body } = render(host, r);
  expect(status).toBe(200);
  const shown = HOSTS[host]!.shown(body);
  const street = r.street ?? undefined;
  const number = r.street ? (r.houseNumber ?? undefined) : undefined;
  if (host === 'bing') {
    // One address line: "number street".
    expect(shown.street).toBe(street === undefined ? undefined : number ? `${number} ${street}` : street);
  } else {
    expect(shown.street).toBe(street);
    expect(shown.number).toBe(number);
  }
  const postcodeShown = r.street || HOSTS[host]!.placePostcode !== false;
  expect(shown.postcode).toBe(postcodeShown ? (r.postcode ?? undefined) : undefined);
});

test.each(Object.keys(HOSTS))(
  "our own backend's record on %s shows no street (answers as before)",
  (host) => {
    const { status, body } = render(host, GEOGATE_RECORD);
    expect(status).toBe(200);
    const shown = HOSTS[host]!.shown(body);
    expect(shown.street).toBeUndefined();
    expect(shown.number).toBeUndefined();
    expect(shown.postcode).toBe(HOSTS[host]!.placePostcode === false ? undefined : '10036');
  },
);
