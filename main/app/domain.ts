import { join } from 'node:path';
import type { PlatformConfig } from '../config.ts';
import { forgetStaleDemoLogins, loadOrCreateDemoPasswords } from '../platform/auth/demo-passwords.ts';
import { loadOrCreateSigningKey } from '../platform/auth/signing-key.ts';
import { createContext } from '../platform/context.ts';
import { DEFAULT_RPC_SETTINGS } from '../platform/rpc.ts';
import { createServices, type Services } from '../platform/services.ts';
import { recordingsInSandbox } from '../recording/recordings-sandbox.ts';
import type { DurableDb } from '../store/durable-db.ts';
import type { Lifecycle } from './lifecycle.ts';
import { VERSION } from '../version.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);
const RETENTION_INTERVAL_MS = 3_600_000;

export interface Domain {
  services: Services;
  /** demo logins created by this start (first start only) */
  seededLogins: { email: string; password: string }[];
}

/** The domain services over a store, as the platform configures them (also for in-process tests and benches). */
export async function openServices(
  db: DurableDb,
  signingKey: Buffer,
  config: PlatformConfig,
): Promise<Services> {
  const services = await createServices(
    await createContext(db),
    signingKey,
    {
      accessTokenTtlSec: config.accessTokenTtlSec,
      refreshTokenTtlSec: config.refreshTokenTtlSec,
      issuer: config.jwtIssuer,
      loginMaxFailures: config.loginMaxFailures,
      loginWindowMs: config.loginWindowMs,
    },
    {
      claimDurationMs: config.claimDurationMs,
      storeBudgetBytes: config.storeBudgetBytes,
      otaDir: join(config.dataDir, 'ota'),
      rpc: {
        ...DEFAULT_RPC_SETTINGS,
        deliveryTimeoutMs: config.rpcDeliveryTimeoutMs,
        maxRetries: config.rpcMaxRetries,
      },
      sandbox: {
        dataDir: config.dataDir,
        maxImportBytes: config.sandboxImportMaxBytes,
        generator: `sandboard ${VERSION}`,
      },
    },
  );
  // the sandbox file carries the recordings (files the store does not hold) too
  services.sandbox.attach(
    recordingsInSandbox({
      dir: join(config.dataDir, 'recordings'),
      maxBytes: config.recordingMaxBytes,
      totalMaxBytes: config.recordingsMaxBytes,
    }),
  );
  await services.sandbox.recoverAttachments();
  return services;
}

/** The domain services over the store, the first start's seeds, and telemetry retention. */
export async function setupDomain(db: DurableDb, config: PlatformConfig, life: Lifecycle): Promise<Domain> {
  const services = await openServices(db, loadOrCreateSigningKey(config.dataDir), config);
  life.onStop(() => services.rpc.stop());
  if (config.resetTo) await services.sandbox.importFile(config.resetTo, { replaceAll: true });
  await services.tenant.seed();
  await services.rpc.restore();
  await services.profiles.seedDefault();
  await services.assetProfiles.seedDefault();
  const demoPasswords = config.randomDemoPasswords ? loadOrCreateDemoPasswords(config.dataDir) : undefined;
  const seededLogins = await services.users.seedDemoUsers(demoPasswords);
  if (demoPasswords) {
    await services.users.replacePublicDemoPasswords(demoPasswords);
    // a changed or reset password (or a deleted user) ends its sessions: the desktop login page then stops offering it
    const forget = () =>
      forgetStaleDemoLogins(config.dataDir, async (email, password) =>
        Boolean(await services.users.verifyPassword(email, password)),
      ).catch((err: unknown) => process.stderr.write(`demo logins: ${(err as Error).message}\n`));
    services.ctx.events.on('sessionsEnded', () => void forget());
    void forget(); // a change a crash cut short
  }

  if (!LOOPBACK_HOSTS.has(config.host)) {
    const defaults = services.users.usersWithDefaultPasswords();
    if (defaults.length > 0) {
      throw new Error(
        `Refusing to serve on ${config.host}: ${defaults.join(', ')} still ha${defaults.length > 1 ? 've' : 's'} the default password. ` +
          'Start on 127.0.0.1, log in and change the password (Security page or POST /api/auth/changePassword) first.',
      );
    }
  }

  // Telemetry history and finished persistent RPCs are kept as long.
  const applyRetention = () =>
    Promise.all([
      services.telemetry.applyRetention(config.telemetryRetentionDays),
      services.rpc.applyRetention(config.telemetryRetentionDays),
    ]);
  await applyRetention();
  const retentionTimer = setInterval(() => {
    applyRetention().catch((err: unknown) => {
      process.stderr.write(`retention failed: ${(err as Error).message}\n`);
    });
  }, RETENTION_INTERVAL_MS);
  retentionTimer.unref();
  life.onStop(() => clearInterval(retentionTimer));
  return { services, seededLogins };
}
