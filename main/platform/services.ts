import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlarmCommentService } from './alarm-comments.ts';
import { AlarmService } from './alarms.ts';
import { AssetProfileService } from './asset-profiles.ts';
import { AssetService } from './assets.ts';
import { CalculatedFieldService } from './calculated-fields.ts';
import { EdgeService } from './edges.ts';
import { EntityDirectory } from './entity-directory.ts';
import { EntityQueryService } from './entity-query.ts';
import { RelationService } from './relations.ts';
import { ApiKeyService } from './auth/api-keys.ts';
import { ClaimService } from './claims.ts';
import { AuthService, type AuthSettings } from './auth/auth-service.ts';
import type { PlatformContext } from './context.ts';
import { CustomerService } from './customers.ts';
import { DashboardService } from './dashboards.ts';
import { DeviceProfileService } from './device-profiles.ts';
import { AssetBulkImport } from './asset-bulk-import.ts';
import { DeviceBulkImport } from './device-bulk-import.ts';
import { DeviceQueries } from './device-queries.ts';
import { DeviceService } from './devices.ts';
import { ProvisionService } from './provisioning.ts';
import { RestApiCallService } from './rest-api-calls.ts';
import { DEFAULT_RPC_SETTINGS, RpcService, type RpcSettings } from './rpc.ts';
import { OtaPackageService } from './ota-packages.ts';
import { OtaUpdateService } from './ota-updates.ts';
import { ScenarioService } from './scenarios.ts';
import { StoreBudget } from './store-budget.ts';
import { TelemetryService } from './telemetry.ts';
import { TransportLimitsService } from './transport-limits.ts';
import { UserCredentialsService } from './auth/user-credentials.ts';
import { TenantService } from './tenant.ts';
import { UserSettingsService } from './user-settings.ts';
import { MqttSnippetService } from './mqtt-snippets.ts';
import { UserService } from './users.ts';
import { WidgetLibrary } from './widgets.ts';
import { DEFAULT_SANDBOX_IMPORT_BYTES, SandboxService } from './sandbox/sandbox-service.ts';

export interface Services {
  ctx: PlatformContext;
  users: UserService;
  userCredentials: UserCredentialsService;
  userSettings: UserSettingsService;
  mqttSnippets: MqttSnippetService;
  tenant: TenantService;
  customers: CustomerService;
  profiles: DeviceProfileService;
  devices: DeviceService;
  deviceQueries: DeviceQueries;
  bulkImport: DeviceBulkImport;
  assetBulkImport: AssetBulkImport;
  telemetry: TelemetryService;
  apiKeys: ApiKeyService;
  auth: AuthService;
  rpc: RpcService;
  /** REST API calls to the rule engine, waiting for the rest call reply node */
  restApiCalls: RestApiCallService;
  claims: ClaimService;
  edges: EdgeService;
  scenarios: ScenarioService;
  provisioning: ProvisionService;
  transportLimits: TransportLimitsService;
  /** the store's size budget: size-based retention and refusal of growing writes */
  storage: StoreBudget;
  /** any entity by type and id: lookups, permissions, time series numbers */
  directory: EntityDirectory;
  relations: RelationService;
  assetProfiles: AssetProfileService;
  assets: AssetService;
  alarms: AlarmService;
  alarmComments: AlarmCommentService;
  entityQuery: EntityQueryService;
  dashboards: DashboardService;
  /** sandbox files: export, plan, all-or-nothing import, trainer mode's class start */
  sandbox: SandboxService;
  /** the system widget bundles and types Sandboard renders, read-only */
  widgets: WidgetLibrary;
  /** ThingsBoard 4.3's calculated fields (their definitions; the rule engine runs them) */
  calculatedFields: CalculatedFieldService;
  /** OTA packages: infos in the store, data as files in the data directory */
  otaPackages: OtaPackageService;
  /** the update flow: shared attributes and states as devices and profiles get packages; rollouts */
  otaUpdates: OtaUpdateService;
}

export interface ServiceSettings {
  /** device.claim.duration, ms */
  claimDurationMs: number;
  /** the store's size budget in bytes; 0 = none */
  storeBudgetBytes: number;
  rpc: RpcSettings;
  /** where the class start is kept and how large an import may be */
  sandbox?: { dataDir?: string; maxImportBytes?: number; generator?: string };
  /** where OTA package files go (the data directory's ota/); default: a directory under the OS temp dir */
  otaDir?: string;
}

export const DEFAULT_SERVICE_SETTINGS: ServiceSettings = {
  claimDurationMs: 86_400_000,
  storeBudgetBytes: 1024 * 1024 * 1024,
  rpc: DEFAULT_RPC_SETTINGS,
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
  const storage = new StoreBudget(ctx, settings.storeBudgetBytes);
  ctx.admit = () => storage.admit();
  const devices = new DeviceService(ctx, profiles, storage);
  const directory = new EntityDirectory(ctx);
  const telemetry = new TelemetryService(ctx, directory, storage);
  const relations = new RelationService(ctx, directory, storage);
  const assetProfiles = new AssetProfileService(ctx);
  const alarms = new AlarmService(ctx, directory, relations, storage);
  const otaPackages = new OtaPackageService(
    ctx,
    settings.otaDir ?? join(tmpdir(), 'sandboard-ota', ctx.tenantId),
    storage,
  );
  return {
    ctx,
    users,
    userCredentials: new UserCredentialsService(ctx, users),
    userSettings: new UserSettingsService(ctx),
    mqttSnippets: new MqttSnippetService(ctx),
    tenant: new TenantService(ctx),
    customers: new CustomerService(ctx),
    profiles,
    devices,
    deviceQueries: new DeviceQueries(ctx, devices, directory),
    bulkImport: new DeviceBulkImport(ctx, { devices, profiles, telemetry, storage }),
    assetBulkImport: new AssetBulkImport(ctx, { profiles: assetProfiles, telemetry, directory, storage }),
    rpc: new RpcService(ctx, settings.rpc, storage),
    restApiCalls: new RestApiCallService(),
    claims: new ClaimService(ctx, devices, settings.claimDurationMs),
    edges: new EdgeService(ctx, devices),
    scenarios: new ScenarioService(ctx),
    telemetry,
    storage,
    provisioning: new ProvisionService(
      ctx,
      { profiles, devices, telemetry },
      { maxFailures: authSettings.loginMaxFailures, windowMs: authSettings.loginWindowMs },
    ),
    transportLimits: new TransportLimitsService(ctx),
    apiKeys,
    auth: new AuthService(ctx, { users, apiKeys, signingKey }, authSettings),
    directory,
    relations,
    assetProfiles,
    assets: new AssetService(ctx, assetProfiles, relations, storage),
    alarmComments: new AlarmCommentService(ctx, alarms, storage),
    alarms,
    entityQuery: new EntityQueryService(ctx, { directory, relations, alarms, telemetry }),
    dashboards: new DashboardService(ctx),
    sandbox: new SandboxService(ctx, {
      dataDir: settings.sandbox?.dataDir,
      maxImportBytes: settings.sandbox?.maxImportBytes ?? DEFAULT_SANDBOX_IMPORT_BYTES,
      generator: settings.sandbox?.generator ?? 'sandboard',
    }),
    widgets: new WidgetLibrary(),
    calculatedFields: new CalculatedFieldService(ctx, directory),
    otaPackages,
    otaUpdates: new OtaUpdateService(ctx, otaPackages, telemetry),
  };
}
