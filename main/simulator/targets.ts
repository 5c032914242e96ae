import { randomBytes } from 'node:crypto';
import { NULL_UUID } from '../../shared/schemas/common.ts';
import type { GatewaySpec, RemoteTarget, Scenario } from '../../shared/schemas/simulation.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { invalidArgument } from '../platform/errors.ts';
import { parseJson } from '../platform/paging.ts';
import type { Services } from '../platform/services.ts';
import type { OtaFleetOptions } from './ota-fleet.ts';
import { otaFleetPlan } from './ota-scenario.ts';
import { gatewayPlan, scenarioSeed } from './scenario.ts';
import { applySetup } from './scenario-setup.ts';
import type { RunGateway } from './simulation-run.ts';

/** Where a run's gateways connect; with services (the embedded platform) gateway devices are provisioned. */
export interface ResolvedTarget {
  url: string;
  ca?: string;
  rejectUnauthorized?: boolean;
  services?: Services;
}

/** The simulator acts on the embedded platform as a tenant administrator (the caller was checked). */
const SIMULATOR: Principal = {
  userId: NULL_UUID,
  email: 'simulator@sandboard.local',
  authority: 'TENANT_ADMIN',
  tenantId: NULL_UUID,
  customerId: null,
  sessionId: null,
  via: 'API_KEY',
};

/** A broker listening on every interface is reached on loopback. */
export function embeddedUrl(mqttUrl: string): string {
  const url = new URL(mqttUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.toString().replace(/\/$/, '');
}

export function remoteTarget(t: RemoteTarget): ResolvedTarget {
  const host = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]` : t.host;
  return {
    url: `${t.tls ? 'mqtts' : 'mqtt'}://${host}:${t.port}`,
    ...(t.ca !== undefined ? { ca: t.ca } : {}),
    ...(t.rejectUnauthorized !== undefined ? { rejectUnauthorized: t.rejectUnauthorized } : {}),
  };
}

/**
 * The gateway device on the embedded platform: found by name (made a gateway if it was not) or created
 * with additionalInfo.gateway = true and the scenario's token (else a generated one).
 */
export async function ensureGatewayDevice(
  services: Services,
  spec: Pick<GatewaySpec, 'name' | 'token'>,
): Promise<{ deviceId: string; token: string }> {
  const devices = services.devices;
  let row = devices.findRowByName(spec.name);
  if (!row) {
    const holder = spec.token ? devices.findRowByToken(spec.token) : undefined;
    if (holder)
      throw invalidArgument(
        `Gateway '${spec.name}': token '${spec.token}' already belongs to device '${holder.name}'`,
      );
    const device = await devices.save(
      {
        name: spec.name,
        additionalInfo: { gateway: true, description: 'Simulated gateway (Sandboard simulator)' },
      },
      SIMULATOR,
      spec.token,
    );
    row = devices.findRow(device.id.id)!;
  } else {
    const info = parseJson(row.additional_info);
    if (info.gateway !== true) {
      await devices.save(
        {
          id: { id: row.id },
          name: row.name,
          label: row.label,
          deviceProfileId: { id: row.device_profile_id },
          customerId: { id: row.customer_id ?? NULL_UUID },
          additionalInfo: { ...info, gateway: true },
        },
        SIMULATOR,
      );
    }
  }
  const token = devices.getCredentials(row.id, SIMULATOR).credentialsId;
  if (spec.token && spec.token !== token)
    throw invalidArgument(
      `Gateway '${spec.name}': the device exists with another access token; give its token or leave "token" out`,
    );
  return { deviceId: row.id, token };
}

/**
 * Plans every gateway of a scenario for a target; on the embedded platform the scenario's setup (profiles,
 * assets) comes first, then the gateway devices are provisioned.
 */
export async function runGateways(scenario: Scenario, target: ResolvedTarget): Promise<RunGateway[]> {
  const tag = randomBytes(3).toString('hex');
  if (target.services) await applySetup(target.services, scenario, SIMULATOR);
  const gateways: RunGateway[] = [];
  for (const [i, spec] of scenario.gateways.entries()) {
    const plan = gatewayPlan(spec, scenarioSeed(scenario));
    let token = spec.token;
    let deviceId: string | null = null;
    if (target.services) ({ deviceId, token } = await ensureGatewayDevice(target.services, spec));
    if (!token)
      throw invalidArgument(`gateways[${i}].token: is required for this target (the gateway access token)`);
    gateways.push({
      plan,
      deviceId,
      connection: {
        url: target.url,
        token,
        clientId: `sandboard-sim-${tag}-${i}`,
        protocolVersion: plan.protocolVersion,
        ...(target.ca !== undefined ? { ca: target.ca } : {}),
        ...(target.rejectUnauthorized !== undefined ? { rejectUnauthorized: target.rejectUnauthorized } : {}),
      },
    });
  }
  return gateways;
}

/** The scenario's OTA devices on the embedded platform, provisioned (none without scenario.ota). */
export async function runOtaFleet(
  scenario: Scenario,
  target: ResolvedTarget,
): Promise<OtaFleetOptions | undefined> {
  if (!scenario.ota) return undefined;
  if (!target.services) throw invalidArgument('ota: is only for the embedded target');
  return otaFleetPlan(target.services, scenario, target.url, SIMULATOR);
}
