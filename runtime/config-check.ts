/** The composed config check of `geogate config check FILE`: the same load and compile as the gateway's start. */
import { summarize, type ConfigChecker } from '../gateway/cli/config-commands';
import { compileConfig, loadConfigFile } from './config';

/** Validate and compile a whole config file (gateway and dashboard sections); throws ConfigError. */
export const checkAppConfig: ConfigChecker = (file, env) => {
  const config = compileConfig(loadConfigFile(file, env), file);
  return summarize(file, config, config.dashboard !== null);
};
