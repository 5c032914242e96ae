import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PlatformConfig {
  dataDir: string;
  host: string;
  httpPort: number;
  mqttPort: number;
  analyticsPort: number;
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  jwtIssuer: string;
  bodyLimitBytes: number;
  loginMaxFailures: number;
  loginWindowMs: number;
  telemetryRetentionDays: number;
  extraAllowedHosts: string[];
  logLevel: string;
  /** largest MQTT packet accepted (v5 clients get DISCONNECT 0x95 above it) */
  mqttMaxPacketBytes: number;
  /** 0 = unlimited; past it a gateway connect answers 0x97 */
  deviceLimit: number;
  inactivityTimeoutMs: number;
  /** device HTTP API: how long a long poll (or a client-side RPC) waits by default (HTTP_REQUEST_TIMEOUT) */
  httpRequestTimeoutMs: number;
  /** device.claim.duration */
  claimDurationMs: number;
  /** a persistent RPC sent with QoS 1 and not acknowledged within this is TIMEOUT and re-sent */
  rpcDeliveryTimeoutMs: number;
  /** re-sends of a persistent RPC after delivery timeouts (ThingsBoard's ACTORS_RPC_MAX_RETRIES) */
  rpcMaxRetries: number;
  /** retrieved edge events not acknowledged within this go back to PENDING */
  edgeAckTimeoutMs: number;
  edgeDeliveredRetentionMs: number;
  /** report API: reports running at once (SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE) */
  reportPoolSize: number;
  /** report API: reports waiting for a slot, past which 429 (SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY) */
  reportQueueCapacity: number;
  /** report worker threads, each with a read replica of the store; 0 = min(pool size, CPU cores, 4) */
  reportWorkers: number;
  /** the store's size budget (sql.js keeps the whole database in memory); 0 = none */
  storeBudgetBytes: number;
  /** the tenant profile's maxCalculatedFieldsPerEntity (ALARM fields not counted) */
  calculatedFieldsPerEntity: number;
  /** the MQTT traffic inspector's ring buffer budget; 0 = the inspector is off at start */
  inspectorBudgetBytes: number;
  /** one recording's file at most (DATA_DIR/recordings): reached, the recording stops, truncated */
  recordingMaxBytes: number;
  /** all recordings' files together at most */
  recordingsMaxBytes: number;
  /** a sandbox import's bytes at most (once unzipped); larger uploads get a 413 */
  sandboxImportMaxBytes: number;
  /** a sandbox file the store is reset to at every start (trainer mode's `--reset-to FILE`) */
  resetTo?: string;
  /** desktop installs: random per-install demo passwords in DATA_DIR/demo-logins.json (owner-only) */
  randomDemoPasswords: boolean;
  /** desktop installs: the shell's per-launch secret; responses prove they come from this core with it */
  shellSecret?: string;
  /** tests only, never from the environment: a slow report, a forced query plan */
  analyticsTestHooks?: { reportDelayMs?: number; plan?: 'bucket' | 'scan' };
}

/** The OS's per-user application data folder for Sandboard. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Sandboard');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Sandboard');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'sandboard');
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return Math.floor(n);
}

/** Defaults, with the environment settings ThingsBoard users know (JWT_TOKEN_EXPIRATION_TIME, ...). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return {
    dataDir: env.SANDBOARD_DATA_DIR || defaultDataDir(env),
    host: '127.0.0.1',
    httpPort: 8080,
    mqttPort: 1883,
    analyticsPort: 8888,
    accessTokenTtlSec: intFromEnv(env, 'JWT_TOKEN_EXPIRATION_TIME', 9000),
    refreshTokenTtlSec: intFromEnv(env, 'JWT_REFRESH_TOKEN_EXPIRATION_TIME', 604800),
    jwtIssuer: env.JWT_TOKEN_ISSUER || 'thingsboard.io',
    bodyLimitBytes: intFromEnv(env, 'SANDBOARD_BODY_LIMIT_BYTES', 1024 * 1024),
    loginMaxFailures: intFromEnv(env, 'SANDBOARD_LOGIN_MAX_FAILURES', 10),
    loginWindowMs: intFromEnv(env, 'SANDBOARD_LOGIN_WINDOW_MS', 60_000),
    telemetryRetentionDays: intFromEnv(env, 'SANDBOARD_TELEMETRY_RETENTION_DAYS', 90),
    extraAllowedHosts: (env.SANDBOARD_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    logLevel: env.SANDBOARD_LOG_LEVEL || 'warn',
    mqttMaxPacketBytes: intFromEnv(env, 'SANDBOARD_MQTT_MAX_PACKET_BYTES', 65_536),
    deviceLimit: intFromEnv(env, 'SANDBOARD_DEVICE_LIMIT', 0),
    inactivityTimeoutMs: intFromEnv(env, 'SANDBOARD_INACTIVITY_TIMEOUT_SEC', 600) * 1000,
    httpRequestTimeoutMs: intFromEnv(env, 'HTTP_REQUEST_TIMEOUT', 60_000),
    claimDurationMs: intFromEnv(env, 'DEVICE_CLAIM_DURATION', 86_400_000),
    rpcDeliveryTimeoutMs: intFromEnv(env, 'SANDBOARD_RPC_DELIVERY_TIMEOUT_MS', 10_000),
    rpcMaxRetries: intFromEnv(env, 'ACTORS_RPC_MAX_RETRIES', 5),
    edgeAckTimeoutMs: intFromEnv(env, 'SANDBOARD_EDGE_ACK_TIMEOUT_MS', 30_000),
    edgeDeliveredRetentionMs: intFromEnv(env, 'SANDBOARD_EDGE_DELIVERED_RETENTION_DAYS', 7) * 86_400_000,
    reportPoolSize: Math.max(1, intFromEnv(env, 'SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE', 10)),
    reportQueueCapacity: intFromEnv(env, 'SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY', 10),
    reportWorkers: intFromEnv(env, 'SANDBOARD_REPORT_WORKERS', 0),
    storeBudgetBytes: intFromEnv(env, 'SANDBOARD_STORE_BUDGET_MB', 1024) * 1024 * 1024,
    calculatedFieldsPerEntity: intFromEnv(env, 'SANDBOARD_CF_MAX_PER_ENTITY', 5),
    inspectorBudgetBytes: intFromEnv(env, 'SANDBOARD_INSPECTOR_BUDGET_MB', 16) * 1024 * 1024,
    recordingMaxBytes: intFromEnv(env, 'SANDBOARD_RECORDING_MAX_MB', 64) * 1024 * 1024,
    recordingsMaxBytes: intFromEnv(env, 'SANDBOARD_RECORDINGS_MAX_MB', 1024) * 1024 * 1024,
    sandboxImportMaxBytes: intFromEnv(env, 'SANDBOARD_SANDBOX_IMPORT_MAX_MB', 512) * 1024 * 1024,
    randomDemoPasswords: env.SANDBOARD_DEMO_PASSWORDS === 'random',
    ...(env.SANDBOARD_SHELL_SECRET ? { shellSecret: env.SANDBOARD_SHELL_SECRET } : {}),
  };
}
