/** Connector `http` (D25): any HTTP service, for passthrough routes only; it translates nothing. */
import type { Connector } from './types';

/** A plain HTTP service: no translated calls; it is up when it answers anything but a 5xx. */
export const httpConnector: Connector = {
  kind: 'http',
  ip: false,
  reverse: false,
  search: false,
  request: () => '/',
  read: () => ({ kind: 'unreadable', reason: 'an http backend has no translated calls' }),
  health: '/',
  healthy: (status) => status < 500,
};
