/** Forward auth behind real Caddy `forward_auth` (D38): rule sets A and B, the documented Caddyfile. */
import { forwardAuthScenarios } from './scenarios';

jest.setTimeout(60_000);
forwardAuthScenarios('caddy');
