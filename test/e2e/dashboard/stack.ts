/**
 * The whole stack for browser tests: the real backend process, the real in-process gateway (createGateway via the
 * gateway harness, ManualClock), the dashboard on its own listener over the same store, and a local SMTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createDashboardApp } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import { PEPPER, startGatewayHarness, type Harness } from '../../helpers/gateway-harness';
import { startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';

export interface Stack {
  gateway: Harness;
  backend: BackendProcess;
  smtp: SmtpCapture;
  dashboardUrl: string;
  close(): Promise<void>;
}

/** Start everything for rule set A or B. */
export async function startStack(policy: 'A' | 'B'): Promise<Stack> {
  const backend = await startBackendProcess();
  const gateway = await startGatewayHarness({ policy, backendUrl: backend.url });
  const smtp = await startSmtpCapture();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dashboardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: dashboardUrl,
    sessionSecret: 'browser-test-session-secret-0123456789',
    smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'no-reply@dash.test' },
    payments: { provider: 'test' },
  };
  const app = createDashboardApp({
    store: gateway.store,
    rules: gateway.config.rules,
    pepper: PEPPER,
    clock: gateway.clock,
    logger: pino({ level: 'silent' }),
    config,
  });
  server.on('request', app);
  return {
    gateway,
    backend,
    smtp,
    dashboardUrl,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await smtp.close();
      await gateway.close();
      await backend.stop();
    },
  };
}

/** GET /v1/reverse on the gateway with a key in X-API-Key; resolves with status and parsed body. */
export async function reverseWithKey(
  gatewayUrl: string,
  key: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gatewayUrl}/v1/reverse?lat=40.7580&lon=-73.9855`, {
    headers: { 'X-API-Key': key },
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body };
}
