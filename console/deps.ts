/** What the operator console needs from its host (the composition root, runtime/server.ts). */
import type pino from 'pino';
import type { Clock } from '../gateway/core/clock';
import type { Cidr } from '../gateway/net/address';
import type { ForwardedHeader } from '../gateway/net/client-address';
import type { RuleSet } from '../gateway/policy/ruleset';
import type { ApiKey } from '../gateway/store/types';
import type {
  AccountStore,
  AdmissionStore,
  BillingStore,
  ConsoleStore,
  KeyStore,
  MarkStore,
  NotificationStore,
} from '../gateway/store/ports';

/** The store ports the console reads and acts through (never SQL of its own). */
export type ConsoleStorePorts = AccountStore &
  KeyStore &
  BillingStore &
  NotificationStore &
  MarkStore &
  ConsoleStore &
  Pick<AdmissionStore, 'findKeyByHash' | 'findWhitelistedAccount'>;

/** Dependencies of createConsole. */
export interface ConsoleDeps {
  store: ConsoleStorePorts;
  rules: RuleSet;
  /** Server-side secret of key hashes (D14): a pasted key is looked up by its hash. */
  pepper: string;
  clock: Clock;
  /** Audit lines and errors. */
  logger: pino.Logger;
  /** The admin token: signs in as the built-in first operator and keys the console's sessions. Never logged. */
  adminToken: string;
  /** The admin listener's readiness checks (what /readyz answers). */
  readiness: () => Promise<Record<string, boolean>>;
  /** Trusted proxies (D3) for the client address of sign-in throttling and audit lines. */
  trustProxy?: readonly Cidr[];
  trustProxyHeader?: ForwardedHeader;
  /** Told of every revocation (notifications, D30). */
  onKeyRevoked?: (key: ApiKey) => void;
}
