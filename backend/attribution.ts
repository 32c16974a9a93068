/** Attribution texts the data licences ask for (see THIRD_PARTY_NOTICES); one goes into every record. */

/** GeoNames (CC BY 4.0: credit, licence link, note of change) and the timezone data (ODbL, OpenStreetMap). */
export const REVERSE_ATTRIBUTION =
  'Place data © GeoNames (https://www.geonames.org/), licensed under CC BY 4.0 ' +
  '(https://creativecommons.org/licenses/by/4.0/); converted and indexed by geogate. ' +
  'Country borders: country-coder (ISC). Time zones: timezone-boundary-builder, © OpenStreetMap contributors (ODbL).';

/** DB-IP Lite (CC BY 4.0; a link back to DB-IP.com is required) and the ASN sources (CC BY 4.0). */
export const IP_ATTRIBUTION =
  "<a href='https://db-ip.com'>IP Geolocation by DB-IP</a> (https://db-ip.com, CC BY 4.0). " +
  'IP to AS Number data: RouteViews (routeviews.org), NRO (nro.net) and DB-IP.com IP to ASN Lite, ' +
  'each CC BY 4.0; merged by ip-location-db, converted by geogate. ' +
  'Time zones: timezone-boundary-builder, © OpenStreetMap contributors (ODbL).';
