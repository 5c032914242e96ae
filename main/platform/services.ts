import { createNodeRegistry } from '../rule-engine/node-registry.ts';
import { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import { ApiKeyService } from './auth/api-keys.ts';
import { ClaimService } from './claims.ts';
import { AuthService, type AuthSettings } from './auth/auth-service.ts';
import type { PlatformContext } from './context.ts';
import { CustomerService } from './customers.ts';
import { DeviceProfileService } from './device-profiles.ts';
import { DeviceService } from './devices.ts';
import { RpcService } from './rpc.ts';
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
  rpc: RpcService;
  claims: ClaimService;
  ruleChains: RuleChainService;
}

export interface ServiceSettings {
  /** device.claim.duration, ms */
  claimDurationMs: number;
}

export function createServices(
  ctx: PlatformContext,
  signingKey: Buffer,
  authSettings: AuthSettings,
  settings: ServiceSettings = { claimDurationMs: 86_400_000 },
): Services {
  const users = new UserService(ctx);
  const profiles = new DeviceProfileService(ctx);
  const apiKeys = new ApiKeyService(ctx);
  const devices = new DeviceService(ctx, profiles);
  return {
    ctx,
    users,
    customers: new CustomerService(ctx),
    profiles,
    devices,
    rpc: new RpcService(),
    claims: new ClaimService(ctx, devices, settings.claimDurationMs),
    ruleChains: new RuleChainService(ctx, createNodeRegistry()),
    telemetry: new TelemetryService(ctx),
    apiKeys,
    auth: new AuthService(ctx, { users, apiKeys, signingKey }, authSettings),
  };
}
