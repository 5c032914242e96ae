import type { PlatformConfig } from '../config.ts';
import { RestConnectorManager } from '../connectors/rest-connector-manager.ts';
import type { Services } from '../platform/services.ts';
import type { Lifecycle } from './lifecycle.ts';
import { isVerbose } from './logging.ts';

/** The app's gateways with their REST connectors (started from the REST Connector page, or autostart). */
export function setupConnectors(
  services: Services,
  mqttUrl: () => string,
  config: PlatformConfig,
  life: Lifecycle,
): RestConnectorManager {
  const verbose = isVerbose(config);
  const restConnectors = new RestConnectorManager({
    services,
    dataDir: config.dataDir,
    mqttUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    log: (level, line) => {
      if (verbose || (level !== 'info' && config.logLevel !== 'silent'))
        process.stderr.write(`${level}: ${line}\n`);
    },
  });
  life.onStop(() => restConnectors.close());
  return restConnectors;
}
