/** The connector of each backend kind (D25). */
import type { BackendKind } from '../config/schema';
import { geogateConnector } from './geogate';
import { httpConnector } from './http';
import { nominatimConnector } from './nominatim';
import { peliasConnector } from './pelias';
import { photonConnector } from './photon';
import type { Connector } from './types';

export type { CallHints, Connector, Reading } from './types';

/** Kind → connector. */
export const CONNECTORS: Readonly<Record<BackendKind, Connector>> = {
  geogate: geogateConnector,
  nominatim: nominatimConnector,
  photon: photonConnector,
  pelias: peliasConnector,
  http: httpConnector,
};
