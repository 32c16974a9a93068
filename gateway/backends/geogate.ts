/** Connector `geogate` (D25): our own backend (backend/), `/reverse?lat&lon` and `/ipv4?ip`, today's behaviour. */
import type { BackendCall } from '../../adapters/types';
import { isIpRecord, isReverseRecord, parseJsonObject } from '../http/record-shape';
import { decimal, statusReading } from './common';
import type { Connector, Reading } from './types';

/** The backend path of a call. `ip` must be filled in by then (the caller's own address for /v1/ipv4). */
export function geogatePath(call: BackendCall): string {
  if (call.kind === 'reverse') return `/reverse?lat=${decimal(call.lat)}&lon=${decimal(call.lon)}`;
  return `/ipv4?ip=${encodeURIComponent(call.ip ?? '')}`;
}

/** A 200 is a record when it has the record shape of its call (gateway/http/record-shape.ts). */
function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  const json = parseJsonObject(body);
  if (json !== null && call.kind === 'reverse' && isReverseRecord(json))
    return { kind: 'record', record: json };
  if (json !== null && call.kind === 'ipv4' && isIpRecord(json)) return { kind: 'record', record: json };
  return { kind: 'unreadable', reason: 'no record shape' };
}

/** Our own backend. */
export const geogateConnector: Connector = {
  kind: 'geogate',
  ip: true,
  reverse: true,
  request: (call) => geogatePath(call),
  read,
  health: '/healthz',
  healthy: (status) => status === 200,
};
