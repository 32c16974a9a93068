/**
 * Fixed answers of the bench's replay backend and connector measurement: our backend's record layout
 * (backend/records.ts); Nominatim's answers recorded from its documentation (docs/api/Reverse.md, the Bologna house;
 * docs/api/Output.md, the London place for `/search`; docs/api/Status.md); Photon's (README "Example response", the
 * Olympic Stadium) and Pelias's (documentation response.md, 30 West 26th Street).
 */

export const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** Our backend's record for the bench point (the shape of backend/records.ts). */
export const GEOGATE = json({
  query: { lat: 48.8584, lon: 2.2945 },
  countryCode: 'FR',
  country: 'France',
  region: 'Île-de-France',
  regionCode: '11',
  county: 'Paris',
  locality: 'Paris',
  postcode: null,
  distanceKm: 4.213,
  displayName: 'Paris, Paris, Île-de-France, France',
  lat: 48.85341,
  lon: 2.3488,
  timezone: 'Europe/Paris',
  attribution: 'Place data © GeoNames (CC BY 4.0)',
});

/** Nominatim jsonv2 reverse (docs/api/Reverse.md, the house in Bologna). */
export const NOMINATIM_REVERSE = json({
  place_id: '18512203',
  licence: 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright',
  osm_type: 'node',
  osm_id: '1704756187',
  lat: '44.5015307',
  lon: '11.3398676',
  place_rank: '30',
  category: 'place',
  type: 'house',
  importance: '0',
  addresstype: 'place',
  name: null,
  display_name: '71, Via Guglielmo Marconi, Saragozza-Porto, Bologna, BO, Emilia-Romagna, 40122, Italy',
  address: {
    house_number: '71',
    road: 'Via Guglielmo Marconi',
    suburb: 'Saragozza-Porto',
    city: 'Bologna',
    county: 'BO',
    state: 'Emilia-Romagna',
    postcode: '40122',
    country: 'Italy',
    country_code: 'it',
  },
  boundingbox: ['44.5014307', '44.5016307', '11.3397676', '11.3399676'],
});

/** Nominatim `/search?format=json` (docs/api/Output.md, the JSON example). */
export const NOMINATIM_SEARCH = json([
  {
    place_id: '100149',
    licence: 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright',
    osm_type: 'node',
    osm_id: '107775',
    boundingbox: ['51.3473219', '51.6673219', '-0.2876474', '0.0323526'],
    lat: '51.5073219',
    lon: '-0.1276474',
    display_name: 'London, Greater London, England, SW1A 2DU, United Kingdom',
    class: 'place',
    type: 'city',
    importance: 0.9654895765402,
  },
]);

/** docs/api/Status.md. */
export const NOMINATIM_STATUS = json({ status: 0, message: 'OK', data_updated: '2020-05-04T14:47:00+00:00' });

/** Photon reverse (README example response, the Olympic Stadium). */
export const PHOTON_REVERSE = json({
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [13.239514674078611, 52.51467945] },
      properties: {
        name: 'Berlin Olympic Stadium',
        street: 'Olympischer Platz',
        housenumber: '3',
        postcode: '14053',
        state: 'Berlin',
        country: 'Germany',
        countrycode: 'DE',
        osm_key: 'leisure',
        osm_value: 'stadium',
        osm_type: 'W',
        osm_id: 38862723,
        extent: [13.23727, 52.5157151, 13.241757, 52.5135972],
      },
    },
  ],
});

/** Pelias reverse (documentation response.md's feature, with a `geocoding` block and `distance`). */
export const PELIAS_REVERSE = json({
  geocoding: { version: '0.2', attribution: 'https://pelias.example/attribution' },
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      properties: {
        layer: 'address',
        source: 'openaddresses',
        name: '30 West 26th Street',
        housenumber: '30',
        street: 'West 26th Street',
        postalcode: '10010',
        country_a: 'USA',
        country: 'United States',
        region: 'New York',
        region_a: 'NY',
        county: 'New York County',
        localadmin: 'Manhattan',
        locality: 'New York',
        neighbourhood: 'Flatiron District',
        confidence: 0.9624939994613662,
        distance: 0.012,
        label: '30 West 26th Street, Manhattan, NY',
      },
      geometry: { type: 'Point', coordinates: [-73.990342, 40.744243] },
    },
  ],
});
