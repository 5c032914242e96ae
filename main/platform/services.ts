import { ApiKeyService } from './auth/api-keys.ts';
import { AuthService, type AuthSettings } from './auth/auth-service.ts';
import type { PlatformContext } from './context.ts';
import { CustomerService } from './customers.ts';
import { DeviceProfileService } from './device-profiles.ts';
import { DeviceService } from './devices.ts';
import { TelemetryService } from './telemetry.ts';
import { UserService } from './users.ts';

export interface Services {
  ctx: PlatformContext;
  users: UserService;
  customers: CustomerService;
  profiles: DeviceProfileService;
  devices: DeviceService;
  telemetry: TelemetryService;
  apiKeys: ApiKeyService;
  auth: AuthService;
}

export function createServices(
  ctx: PlatformContext,
  signingKey: Buffer,
  authSettings: AuthSettings,
): Services {
  const users = new UserService(ctx);
  const profiles = new DeviceProfileService(ctx);
  const apiKeys = new ApiKeyService(ctx);
  return {
    ctx,
    users,
    customers: new CustomerService(ctx),
    profiles,
    devices: new DeviceService(ctx, profiles),
    telemetry: new TelemetryService(ctx),
    apiKeys,
    auth: new AuthService(ctx, { users, apiKeys, signingKey }, authSettings),
  };
}
