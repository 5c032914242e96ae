import type { Services } from '../platform/services.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import { DeviceActivity } from './device-activity.ts';
import type { TransportCore } from './device-messages.ts';
import { TransportLimiter } from './rate-limiter.ts';

export interface TransportCoreOptions {
  deviceLimit: number;
  inactivityTimeoutMs: number;
  maxPayloadSize: number;
}

/**
 * The part of the transports MQTT and HTTP share: device activity, the tenant's rate limits (one set of
 * buckets whichever protocol a device uses) and the path into the rule engine.
 */
export function createTransportCore(
  services: Services,
  engine: RuleEngine,
  options: TransportCoreOptions,
): { core: TransportCore; stop(): void } {
  const activity = new DeviceActivity(services, engine, options.inactivityTimeoutMs);
  const limiter = new TransportLimiter(services.transportLimits.get());
  const onLimits = (limits: Parameters<TransportLimiter['update']>[0]) => limiter.update(limits);
  const onDeleted = ({ deviceId }: { deviceId: string }) => {
    activity.forget(deviceId);
    limiter.forget(deviceId);
  };
  services.ctx.events.on('transportLimitsChanged', onLimits);
  services.ctx.events.on('deviceDeleted', onDeleted);
  return {
    core: {
      services,
      engine,
      activity,
      limiter,
      deviceLimit: options.deviceLimit,
      maxPayloadSize: options.maxPayloadSize,
    },
    stop() {
      services.ctx.events.off('transportLimitsChanged', onLimits);
      services.ctx.events.off('deviceDeleted', onDeleted);
      activity.stop();
    },
  };
}
