/** Forward auth behind real nginx `auth_request` (D38): rule sets A and B, the documented configuration. */
import { forwardAuthScenarios } from './scenarios';

jest.setTimeout(60_000);
forwardAuthScenarios('nginx');
