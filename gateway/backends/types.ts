/**
 * Connectors (D25): one file per backend kind, pure functions that turn the gateway's canonical call into the backend's
 * request and the backend's answer into the gateway's record. They never do I/O; the forwarder sends what they build.
 */
import type { BackendCall, SearchResults } from '../../adapters/types';
import type { IpRecord, ReverseRecord } from '../../backend/records';
import type { BackendKind } from '../config/schema';

/** What the client asked beyond the point, passed on where the backend can use it (Nominatim `zoom`, languages). */
export interface CallHints {
  /** 0..18, as the client sent it (Nominatim's zoom). */
  zoom?: number;
  /** The client's `accept-language` (query parameter or header), as sent. */
  language?: string;
}

/** What a backend answer is, in the gateway's words (the D11 table decides keep or release from it). */
export type Reading =
  | { kind: 'record'; record: ReverseRecord | IpRecord }
  /** A forward lookup's answer: a list of results, possibly empty ("nothing matched" is an answer given, charged). */
  | { kind: 'results'; answer: SearchResults }
  /** An answer that says "nothing here" (Nominatim's `Unable to geocode`, an empty FeatureCollection): charged. */
  | { kind: 'no_result' }
  /** A 2xx the connector cannot read (junk JSON, wrong shape): released, 502. */
  | { kind: 'unreadable'; reason: string }
  /** A 400: the backend refused the request as malformed (released). */
  | { kind: 'rejected' }
  /** Any other status (5xx...): released, 502. */
  | { kind: 'failed' };

/** A backend kind's translation functions. */
export interface Connector {
  readonly kind: BackendKind;
  /** Whether the kind answers IP lookups (only geogate has an IPv4 database). */
  readonly ip: boolean;
  /** Whether the kind answers reverse lookups (every kind but http). */
  readonly reverse: boolean;
  /** Whether the kind answers forward lookups (issue 11: geogate, nominatim, photon, pelias). */
  readonly search: boolean;
  /** The request path and query (relative to the backend's URL prefix) of a call; `ip` is filled in by then. */
  request(call: BackendCall, hints: CallHints): string;
  /** Read an answer (any status) of the call. */
  read(call: BackendCall, status: number, body: Buffer): Reading;
  /** The kind's cheap readiness call (D27), relative to the prefix. */
  readonly health: string;
  /** Whether the readiness call's answer says "up". */
  healthy(status: number, body: Buffer): boolean;
}
