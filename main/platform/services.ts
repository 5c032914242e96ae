import { createNodeRegistry } from '../rule-engine/node-registry.ts';
import { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import { EdgeQueue } from '../edge/edge-queue.ts';
import { EdgeService } from '../edge/edges.ts';
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
  edges: EdgeService;
  edgeQueue: EdgeQueue;
}

export interface ServiceSettings {
  /** device.claim.duration, ms */
  claimDurationMs: number;
  edgeAckTimeoutMs: number;
  edgeDeliveredRetentionMs: number;
}

export const DEFAULT_SERVICE_SETTINGS: ServiceSettings = {
  claimDurationMs: 86_400_000,
  edgeAckTimeoutMs: 30_000,
  edgeDeliveredRetentionMs: 7 * 86_400_000,
};

export function createServices(
  ctx: PlatformContext,
  signingKey: Buffer,
  authSettings: AuthSettings,
  settings: ServiceSettings = DEFAULT_SERVICE_SETTINGS,
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
    edges: new EdgeService(ctx, devices),
    edgeQueue: new EdgeQueue(ctx, {
      ackTimeoutMs: settings.edgeAckTimeoutMs,
      deliveredRetentionMs: settings.edgeDeliveredRetentionMs,
    }),
    telemetry: new TelemetryService(ctx),
    apiKeys,
    auth: new AuthService(ctx, { users, apiKeys, signingKey }, authSettings),
  };
}
