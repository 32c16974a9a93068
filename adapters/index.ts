/** The adapter registry: every host convention by the name used in the YAML `adapter:` field. */
import { bing } from './bing';
import { geoapify } from './geoapify';
import { geocodio } from './geocodio';
import { google } from './google';
import { here } from './here';
import { ipinfo } from './ipinfo';
import { ipstack } from './ipstack';
import { locationiq } from './locationiq';
import { mapbox } from './mapbox';
import { nativeAdapter } from './native';
import { nominatim } from './nominatim';
import { opencage } from './opencage';
import { pelias } from './pelias';
import { photon } from './photon';
import { positionstack } from './positionstack';
import { tomtom } from './tomtom';
import type { Adapter } from './types';

/** Adapters by name. Drop-in adapters add one line each. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const ADAPTERS: Record<string, Adapter<any>> = {
  native: nativeAdapter,
  google,
  ipinfo,
  mapbox,
  nominatim,
  bing,
  geoapify,
  geocodio,
  here,
  ipstack,
  locationiq,
  opencage,
  pelias,
  photon,
  positionstack,
  tomtom,
};
