import { configFromEnv } from '../../main/config.ts';
import { startPlatform, type Platform } from '../../main/app/start-platform.ts';

/** The real platform in this process on free ports over `dataDir`, quiet: for benches that meter its event loop. */
export function startInProcessPlatform(dataDir: string): Promise<Platform> {
  return startPlatform({
    ...configFromEnv({}),
    dataDir,
    httpPort: 0,
    mqttPort: 0,
    analyticsPort: 0,
    logLevel: 'silent',
  });
}
