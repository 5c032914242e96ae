import type { PlatformConfig } from '../config.ts';

/** info and below: the rule engine's log lines and the connectors' info lines go to stderr too. */
export function isVerbose(config: PlatformConfig): boolean {
  return config.logLevel === 'info' || config.logLevel === 'debug' || config.logLevel === 'trace';
}
