/** The dashboard module: app factory, config schema, listener helper. */
export { createDashboardApp, type DashboardDeps } from './app';
export { dashboardConfigSchema, type DashboardConfig } from './config';
export { startDashboard, type DashboardServer } from './server';
export type { PaymentProvider } from './payments/types';
export type { Mailer } from './mailer';
