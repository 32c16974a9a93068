/** What a store may need from the gateway (createStore's second argument). */
import type { Clock } from '../core/clock';

/** The store's logger: pino's shape, three levels. */
export interface StoreLogger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}

/** What a store may need from the gateway. */
export interface StoreDeps {
  clock: Clock;
  logger?: StoreLogger;
}
