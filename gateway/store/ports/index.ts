/**
 * The store's ports, one per feature (STYLE.md "Narrow ports"): each consumer names the port(s) it uses. `Store`, all
 * of them, is for the composition root only (runtime/, createStore, test helpers).
 */
import type { AccountStore } from './accounts';
import type { AutoTopUpStore } from './auto-topup';
import type { AdmissionStore } from './admission';
import type { BillingStore } from './billing';
import type { ConsoleStore } from './console';
import type { KeyStore } from './keys';
import type { Lifecycle } from './lifecycle';
import type { MarkStore } from './marks';
import type { NotificationStore } from './notifications';
import type { SecurityStore } from './security';

export type {
  AccountStore,
  AutoTopUpStore,
  AdmissionStore,
  BillingStore,
  ConsoleStore,
  KeyStore,
  Lifecycle,
  MarkStore,
  NotificationStore,
};
export type { SecurityStore };

/** Every port of one store: the composition root's view. */
export type Store = AdmissionStore &
  AccountStore &
  KeyStore &
  BillingStore &
  NotificationStore &
  MarkStore &
  ConsoleStore &
  AutoTopUpStore &
  SecurityStore &
  Lifecycle;
