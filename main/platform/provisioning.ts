import { randomBytes } from 'node:crypto';
import type { CredentialsType } from '../../shared/schemas/entities.ts';
import type { PlatformContext } from './context.ts';
import { provisionSecretOf, type DeviceProfileService } from './device-profiles.ts';
import {
  generateAccessToken,
  type BasicMqttCredentials,
  type DeviceRow,
  type DeviceService,
  type NewCredentials,
} from './devices.ts';
import { LoginRateLimiter } from './auth/login-rate-limit.ts';
import { ErrorCode, isUniqueViolation, PlatformError } from './errors.ts';
import { parseJson } from './paging.ts';
import type { TelemetryService } from './telemetry.ts';

/** A device's provision request, as ThingsBoard's JSON adaptor reads it. */
export interface ProvisionRequest {
  deviceName: string;
  provisionDeviceKey: string;
  provisionDeviceSecret: string;
  credentialsType: CredentialsType;
  token: string;
  clientId: string;
  username: string;
  password: string;
  gateway: boolean;
}

/** The answer, field for field as ThingsBoard's JsonConverter writes it. */
export type ProvisionResponse =
  | { credentialsValue: string | BasicMqttCredentials; credentialsType: CredentialsType; status: 'SUCCESS' }
  | { errorMsg: 'Provision data was not found!'; status: 'NOT_FOUND' }
  | { errorMsg: 'Failed to provision device!'; status: 'FAILURE' };

/** What the rule engine is told: PROVISION_SUCCESS / PROVISION_FAILURE (and ENTITY_CREATED) of a device. */
export interface ProvisionEvent {
  type: 'PROVISION_SUCCESS' | 'PROVISION_FAILURE' | 'ENTITY_CREATED';
  device: DeviceRow;
  data: unknown;
}

const NOT_FOUND: ProvisionResponse = { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' };
export const PROVISION_FAILURE: ProvisionResponse = {
  errorMsg: 'Failed to provision device!',
  status: 'FAILURE',
};
const FAILURE = PROVISION_FAILURE;
const PROVISION_STATE = 'provisionState';
const CREDENTIALS_TYPES = new Set(['ACCESS_TOKEN', 'MQTT_BASIC']);

/** Too many failed provision requests from this address or for this profile key (HTTP 429). */
export class ProvisionThrottledError extends PlatformError {
  constructor(waitMs: number) {
    super(
      429,
      ErrorCode.TOO_MANY_REQUESTS,
      'Too many failed provision requests from this address or for this provision key, try again later',
      { 'retry-after': String(Math.ceil(waitMs / 1000)) },
    );
  }
}

/** How many failed provision requests an address, or a profile's provision key, may make in a window. */
export interface ProvisionThrottle {
  maxFailures: number;
  windowMs: number;
}

/** A payload that is not a provision request: the transport answers it as bad input. */
export class ProvisionPayloadError extends PlatformError {
  constructor(message: string) {
    super(400, 31, message);
  }
}

function str(body: Record<string, unknown>, field: string, required: boolean): string {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required)
      throw new ProvisionPayloadError(`Failed to find the field ${field} in the provision request`);
    return '';
  }
  if (typeof v === 'object') throw new ProvisionPayloadError(`'${field}' must be a string`);
  return String(v);
}

/** Reads a provision request as ThingsBoard does: key and secret required, ACCESS_TOKEN by default. */
export function parseProvisionRequest(body: unknown): ProvisionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ProvisionPayloadError(
      'A provision request is a JSON object {"deviceName":"..","provisionDeviceKey":"..","provisionDeviceSecret":".."}',
    );
  const b = body as Record<string, unknown>;
  const type = str(b, 'credentialsType', false) || 'ACCESS_TOKEN';
  if (!CREDENTIALS_TYPES.has(type))
    throw new ProvisionPayloadError(
      `credentialsType '${type}' is not supported: use ACCESS_TOKEN or MQTT_BASIC`,
    );
  return {
    deviceName: str(b, 'deviceName', false),
    provisionDeviceKey: str(b, 'provisionDeviceKey', true),
    provisionDeviceSecret: str(b, 'provisionDeviceSecret', true),
    credentialsType: type as CredentialsType,
    token: str(b, 'token', false),
    clientId: str(b, 'clientId', false),
    username: str(b, 'username', false),
    password: str(b, 'password', false),
    gateway: b.gateway === true || b.gateway === 'true',
  };
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const randomName = () => [...randomBytes(20)].map((b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');

/**
 * Device provisioning as ThingsBoard's DeviceProvisionServiceImpl does it: a profile found by its
 * provision key and secret either creates the device (ALLOW_CREATE_NEW_DEVICES, refusing a name that
 * exists) or hands out the credentials of a device created beforehand in that profile, once
 * (CHECK_PRE_PROVISIONED_DEVICES; the server attribute provisionState remembers it).
 */
export class ProvisionService {
  private readonly ctx: PlatformContext;
  private readonly profiles: DeviceProfileService;
  private readonly devices: DeviceService;
  private readonly telemetry: TelemetryService;
  private readonly byAddress: LoginRateLimiter;
  private readonly byKey: LoginRateLimiter;

  constructor(
    ctx: PlatformContext,
    deps: { profiles: DeviceProfileService; devices: DeviceService; telemetry: TelemetryService },
    throttle: ProvisionThrottle = { maxFailures: 10, windowMs: 60_000 },
  ) {
    this.ctx = ctx;
    this.profiles = deps.profiles;
    this.devices = deps.devices;
    this.telemetry = deps.telemetry;
    this.byAddress = new LoginRateLimiter(throttle.maxFailures, throttle.windowMs, ctx.now);
    this.byKey = new LoginRateLimiter(throttle.maxFailures, throttle.windowMs, ctx.now);
  }

  /**
   * Answers a provision request from a client address. Requests with a wrong key or secret are counted
   * per address and per provision key, as failed logins are: past the limit, requests from that address
   * or for that key are refused with ProvisionThrottledError until the window has passed.
   */
  async provision(
    req: ProvisionRequest,
    client = '',
  ): Promise<{ response: ProvisionResponse; events: ProvisionEvent[] }> {
    const key = `key:${req.provisionDeviceKey}`;
    const wait = Math.max(this.byAddress.retryAfterMs(client), this.byKey.retryAfterMs(key));
    if (wait > 0) throw new ProvisionThrottledError(wait);
    const result = await this.answer(req);
    // a wrong key or secret (NOT_FOUND) is what guessing looks like; a taken name or a full store is not
    if (result.response.status === 'NOT_FOUND') {
      this.byAddress.recordFailure(client);
      if (req.provisionDeviceKey !== '') this.byKey.recordFailure(key);
    } else if (result.response.status === 'SUCCESS') this.byAddress.recordSuccess(client);
    return result;
  }

  private async answer(
    req: ProvisionRequest,
  ): Promise<{ response: ProvisionResponse; events: ProvisionEvent[] }> {
    const name = req.deviceName.trim();
    if (req.deviceName !== '' && name === '') return { response: FAILURE, events: [] };
    if (req.provisionDeviceKey === '' || req.provisionDeviceSecret === '')
      return { response: NOT_FOUND, events: [] };
    const profile = this.profiles.findRowByProvisionKey(req.provisionDeviceKey);
    const secret = profile && provisionSecretOf(parseJson(profile.profile_data));
    if (!profile || !secret || secret !== req.provisionDeviceSecret)
      return { response: NOT_FOUND, events: [] };
    const existing = name ? this.devices.findRowByName(name) : undefined;
    const failed = (device: DeviceRow) => ({
      response: FAILURE,
      events: [{ type: 'PROVISION_FAILURE' as const, device, data: req }],
    });

    if (profile.provision_type === 'ALLOW_CREATE_NEW_DEVICES') {
      if (existing) return failed(existing);
      const credentials = credentialsOf(req);
      if (!credentials) return { response: FAILURE, events: [] };
      let device: DeviceRow;
      const ts = this.ctx.now();
      const state = { [PROVISION_STATE]: 'provisioned' };
      try {
        // refused at a full store before anything is written; the device and its state in one write, so
        // that a refusal leaves no device behind (and provisioning it again later works)
        await this.ctx.admit?.();
        const id = await this.ctx.db.write((w) => {
          const id = this.devices.insert(
            w,
            {
              name: name || randomName(),
              profileId: profile.id,
              profileName: profile.name,
              label: null,
              customerId: null,
              info: JSON.stringify(req.gateway ? { gateway: true } : {}),
            },
            credentials,
          );
          this.telemetry.writeAttributes(w, id, 'SERVER_SCOPE', state, ts);
          return id;
        });
        device = this.devices.findRow(id)!;
      } catch (err) {
        if (isUniqueViolation(err) || err instanceof PlatformError) return { response: FAILURE, events: [] };
        throw err;
      }
      this.ctx.events.emit('deviceSaved', { deviceId: device.id, created: true });
      this.ctx.events.emit('attributes', { deviceId: device.id, scope: 'SERVER_SCOPE', values: state, ts });
      return {
        response: this.success(device),
        events: [
          { type: 'ENTITY_CREATED', device, data: this.devices.toDevice(device) },
          { type: 'PROVISION_SUCCESS', device, data: req },
        ],
      };
    }
    if (profile.provision_type === 'CHECK_PRE_PROVISIONED_DEVICES') {
      if (!existing || existing.device_profile_id !== profile.id) return { response: FAILURE, events: [] };
      const state = this.telemetry.attributes(existing.id, ['SERVER_SCOPE'], [PROVISION_STATE])[0];
      if (state) return state.value === 'provisioned' ? failed(existing) : { response: FAILURE, events: [] };
      try {
        await this.telemetry.saveAttributes(existing.id, 'SERVER_SCOPE', {
          [PROVISION_STATE]: 'provisioned',
        });
      } catch (err) {
        // a full store: nothing was written, the device may try again
        if (err instanceof PlatformError) return { response: FAILURE, events: [] };
        throw err;
      }
      return {
        response: this.success(existing),
        events: [{ type: 'PROVISION_SUCCESS', device: existing, data: req }],
      };
    }
    return { response: NOT_FOUND, events: [] };
  }

  private success(device: DeviceRow): ProvisionResponse {
    const row = this.ctx.db.get<{
      credentials_type: CredentialsType;
      credentials_id: string;
      credentials_value: string | null;
    }>(
      'SELECT credentials_type, credentials_id, credentials_value FROM device_credentials WHERE device_id = ?',
      [device.id],
    )!;
    if (row.credentials_type === 'MQTT_BASIC') {
      const v = parseJson(row.credentials_value) as Partial<BasicMqttCredentials>;
      return {
        credentialsValue: {
          clientId: v.clientId ?? null,
          userName: v.userName ?? null,
          password: v.password ?? null,
        },
        credentialsType: 'MQTT_BASIC',
        status: 'SUCCESS',
      };
    }
    return { credentialsValue: row.credentials_id, credentialsType: 'ACCESS_TOKEN', status: 'SUCCESS' };
  }
}

/**
 * The new device's credentials: the requested ones when any were given, else a generated access token.
 * undefined when the request names credentials it does not give (an ACCESS_TOKEN without a token).
 */
function credentialsOf(req: ProvisionRequest): NewCredentials | undefined {
  const given = req.token || req.clientId || req.username || req.password;
  if (!given) return { type: 'ACCESS_TOKEN', token: generateAccessToken() };
  if (req.credentialsType === 'MQTT_BASIC') {
    const nul = (s: string) => (s === '' ? null : s);
    return {
      type: 'MQTT_BASIC',
      basic: { clientId: nul(req.clientId), userName: nul(req.username), password: nul(req.password) },
    };
  }
  if (!/^\S{1,255}$/.test(req.token)) return undefined;
  return { type: 'ACCESS_TOKEN', token: req.token };
}
