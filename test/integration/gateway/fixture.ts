/**
 * The set-up of test/integration/gateway (canonical for this folder): the real backend process for the whole file
 * and in-process gateways (test/helpers/gateway-harness.ts) that close themselves, so no test file copies a
 * backend beforeAll/afterAll or a "close h after each test" block.
 */
import { selfClosing, useFixture } from '../../helpers/fixture';
import { startGatewayHarness, type Harness, type HarnessOptions } from '../../helpers/gateway-harness';
import { useBackendProcess, type RunningProcess } from '../../helpers/gateway-processes';

/** Gateway options; `backendUrl` defaults to the fixture's backend process. */
export type GatewayOptions = Omit<HarnessOptions, 'backendUrl'> & { backendUrl?: string };

/** Starts a gateway that is closed for the caller (see `gatewayStarter`). */
export type StartGateway = (opts: GatewayOptions) => Promise<Harness>;

/** What `useGatewayFixture` gives a test file. */
export interface GatewayFixture {
  /** The real backend process (live handle: read it inside tests and hooks). */
  backend: RunningProcess;
  start: StartGateway;
}

/** The real backend process, started once for the enclosing describe block (or file) and stopped after it. */
export const useBackend = useBackendProcess;

/**
 * A `start` whose gateways close themselves: one started inside a test closes after that test, one started in a
 * beforeAll closes after the file. A gateway the test closed itself is not closed twice.
 */
export function gatewayStarter(defaultBackendUrl: () => string = () => 'http://127.0.0.1:9'): StartGateway {
  return selfClosing((opts: GatewayOptions) =>
    startGatewayHarness({ ...opts, backendUrl: opts.backendUrl ?? defaultBackendUrl() }),
  );
}

/** The backend process for the file and a self-closing `start` for gateways in front of it. */
export function useGatewayFixture(): GatewayFixture {
  const backend = useBackend();
  return { backend, start: gatewayStarter(() => backend.url) };
}

/** One gateway for the enclosing describe block, started in its beforeAll and closed in its afterAll. */
export function useGateway(opts: () => HarnessOptions): Harness {
  return useFixture(
    'gateway',
    () => startGatewayHarness(opts()),
    (h) => h.close(),
  );
}
