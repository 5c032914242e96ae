/**
 * The one typed client of the UI: every call the app makes to the platform goes through here. Request
 * and response types are the TypeBox schemas' static types from shared/, the same ones the server
 * validates with, so the two sides cannot drift apart.
 */
import type {
  ApiKey,
  ChangePasswordRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  JwtPair,
  User,
} from '../../../shared/schemas/auth.ts';
import { TIMEOUT_STATUS_HEADER } from '../../../shared/http-headers.ts';
import type { ErrorResponse, PageData } from '../../../shared/schemas/common.ts';
import type {
  Customer,
  Device,
  DeviceCredentials,
  DeviceInfo,
  EntitySubtype,
  SaveDeviceCredentialsRequest,
  SaveDeviceRequest,
} from '../../../shared/schemas/entities.ts';
import type { RuleChain, RuleChainMetadata } from '../../../shared/rule-engine.ts';
import type { TestScriptRequest, TestScriptResponse } from '../../../shared/schemas/rule-script.ts';
import type { Edge, EdgeEvent, EdgeEventStatus, SaveEdgeRequest } from '../../../shared/schemas/edge.ts';
import type {
  CutOffEdgeRequest,
  EdgeReceiveFaults,
  EdgeSimulatorDetails,
  EdgeSimulatorSummary,
  SetEdgeSimulatorRateRequest,
  StartEdgeSimulatorRequest,
} from '../../../shared/schemas/edge-simulator.ts';
import type { DemoLogins, PlatformInfo, PlatformStats } from '../../../shared/schemas/sandboard.ts';
import type {
  Scenario,
  SimulationDetails,
  SimulationReport,
  SimulationStatus,
  SimulationSummary,
} from '../../../shared/schemas/simulation.ts';
import type { AttributeData, AttributeScope, TimeseriesData } from '../../../shared/schemas/telemetry.ts';
import type { Session, SessionStore } from './session.ts';

export type {
  ApiKey,
  CreatedApiKey,
  Customer,
  Device,
  DeviceCredentials,
  DeviceInfo,
  PlatformInfo,
  PlatformStats,
  User,
};
export type { AttributeData, AttributeScope, RuleChain, RuleChainMetadata, TimeseriesData };
export type { Scenario, SimulationDetails, SimulationReport, SimulationStatus, SimulationSummary };
export type { Edge, EdgeEvent, EdgeEventStatus, EdgeSimulatorDetails, EdgeSimulatorSummary, SaveEdgeRequest };

/** A node type the rule engine runs (GET /api/ruleNode/types). */
export interface RuleNodeType {
  type: string;
  label: string;
  /** ThingsBoard's palette group: FILTER, ENRICHMENT, TRANSFORMATION, ACTION, EXTERNAL or FLOW */
  componentType?: string;
  description?: string;
  /** more about what it does, and ThingsBoard's documentation page of it ('' when none) */
  details?: string;
  docUrl?: string;
  relations: string[];
  customRelations?: boolean;
  /** a rule chain node: its relations are the output labels of the chain it calls */
  ruleChainNode?: boolean;
  /** the chain types it is offered for (CORE, EDGE) */
  ruleChainTypes?: string[];
  defaultConfiguration: Record<string, unknown>;
}

export type EdgeQueueCounts = Record<EdgeEventStatus, number>;

export interface EdgeEventQuery {
  page: number;
  pageSize: number;
  status?: EdgeEventStatus;
  sortOrder?: 'ASC' | 'DESC';
}

export interface EdgePageQuery {
  page: number;
  pageSize: number;
  textSearch?: string;
  sortProperty?: 'createdTime' | 'name' | 'type' | 'label';
  sortOrder?: 'ASC' | 'DESC';
}

export type RpcKind = 'oneway' | 'twoway';

export interface RpcRequest {
  method: string;
  params?: unknown;
  /** ms */
  timeout?: number;
}

/** What a claim ended with: the device is now the customer's, the key was wrong or late, or it has an owner. */
export type ClaimOutcome = { response: 'SUCCESS'; device: Device } | { response: 'FAILURE' | 'CLAIMED' };

/** What the edge sync demo set up (POST /api/sandboard/demo/edge-sync). */
export interface EdgeSyncDemo {
  edgeId: string;
  simulationId: string;
  edgeSimulatorId: string;
  /** the sample simulation was stopped (by the user) and the demo started it again */
  simulationRestarted: boolean;
}

/** ThingsBoard's error codes the UI acts on. */
export const ErrorCodes = {
  AUTHENTICATION: 10,
  JWT_EXPIRED: 11,
  CREDENTIALS_EXPIRED: 15,
  PERMISSION_DENIED: 20,
} as const;

/** An error answer of the API, or a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly errorCode: number;
  /** the answer's body (parsed JSON, else text) when it was not a ThingsBoard error body */
  readonly body: unknown;
  constructor(status: number, errorCode: number, message: string, body?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errorCode = errorCode;
    this.body = body;
  }
}

export interface DevicePageQuery {
  page: number;
  pageSize: number;
  textSearch?: string;
  sortProperty?: 'createdTime' | 'name' | 'type' | 'label' | 'deviceProfileName';
  sortOrder?: 'ASC' | 'DESC';
}

/** The device list's query: ThingsBoard's device info filter (activity and type) besides paging. */
export interface DeviceInfoPageQuery extends DevicePageQuery {
  active?: boolean;
  type?: string;
}

export interface HistoryQuery {
  keys: string[];
  startTs: number;
  endTs: number;
  limit?: number;
  agg?: 'NONE' | 'AVG' | 'MIN' | 'MAX' | 'SUM' | 'COUNT';
  interval?: number;
  orderBy?: 'ASC' | 'DESC';
}

type Query = Record<string, string | number | boolean | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** false: a public endpoint, sent without the session's token */
  auth?: boolean;
  headers?: Record<string, string>;
  /** the body as text, not parsed (a JSON Lines download) */
  text?: boolean;
  /** a file sent as it is (application/octet-stream), instead of a JSON body */
  file?: Blob;
}

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const enc = encodeURIComponent;

export class ApiClient {
  private readonly session: SessionStore;
  private readonly baseUrl: string;
  private refreshing: Promise<Session> | null = null;

  constructor(session: SessionStore, baseUrl = '') {
    this.session = session;
    this.baseUrl = baseUrl;
  }

  private async send(method: string, path: string, options: RequestOptions, token: string | null) {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.file) headers['content-type'] = 'application/octet-stream';
    if (token) headers['x-authorization'] = `Bearer ${token}`;
    try {
      return await fetch(this.baseUrl + withQuery(path, options.query), {
        method,
        headers,
        body: options.file ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 0, 'Cannot reach Sandboard: is the platform running?');
    }
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const auth = options.auth !== false;
    let session = auth ? this.session.session : null;
    if (auth && !session) throw new ApiError(401, ErrorCodes.AUTHENTICATION, 'Not logged in');
    if (session && session.expiresAt - Date.now() < 5_000) session = await this.refreshSession();
    let res = await this.send(method, path, options, session?.token ?? null);
    if (auth && res.status === 401) {
      const error = await this.errorOf(res);
      if (error.errorCode !== ErrorCodes.JWT_EXPIRED) {
        this.session.clear(`Your session has ended: ${error.message}. Log in again.`);
        throw error;
      }
      // expired in between: refresh once and try again
      session = await this.refreshSession();
      res = await this.send(method, path, options, session.token);
    }
    if (!res.ok) throw await this.errorOf(res);
    const text = await res.text();
    if (options.text) return text as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async errorOf(res: Response): Promise<ApiError> {
    let text = '';
    try {
      text = await res.clone().text();
      const body = JSON.parse(text) as unknown;
      const message = (body as Partial<ErrorResponse> | null)?.message;
      if (typeof message === 'string')
        return new ApiError(res.status, (body as Partial<ErrorResponse>).errorCode ?? 0, message, body);
      return new ApiError(res.status, 0, `${res.status} ${res.statusText || 'error'}`, body);
    } catch {
      /* not a ThingsBoard error body */
    }
    return new ApiError(res.status, 0, `${res.status} ${res.statusText || 'error'}`, text || undefined);
  }

  /**
   * Exchanges the refresh token for a new pair (one request at a time, however many callers ask).
   * A refused refresh ends the session.
   */
  refreshSession(): Promise<Session> {
    if (this.refreshing) return this.refreshing;
    const current = this.session.session;
    if (!current) return Promise.reject(new ApiError(401, ErrorCodes.AUTHENTICATION, 'Not logged in'));
    this.refreshing = (async () => {
      try {
        const res = await this.send(
          'POST',
          '/api/auth/token',
          { body: { refreshToken: current.refreshToken } },
          null,
        );
        if (!res.ok) {
          const error = await this.errorOf(res);
          if (res.status === 401)
            this.session.clear(`Your session has ended: ${error.message}. Log in again.`);
          throw error;
        }
        return this.session.set((await res.json()) as JwtPair);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** A token valid for at least a minute (refreshed when needed): for requests made outside fetch (uploads). */
  async freshToken(): Promise<string> {
    let session = this.session.session;
    if (!session) throw new ApiError(401, ErrorCodes.AUTHENTICATION, 'Not logged in');
    if (session.expiresAt - Date.now() < 60_000) session = await this.refreshSession();
    return session.token;
  }

  /** Where the API is ('' for the page's own origin). */
  get base(): string {
    return this.baseUrl;
  }

  // --- auth -------------------------------------------------------------------------------------

  async login(username: string, password: string): Promise<Session> {
    const pair = await this.request<JwtPair>('POST', '/api/auth/login', {
      body: { username, password },
      auth: false,
    });
    return this.session.set(pair);
  }

  /** ThingsBoard's public login: a public dashboard link's viewer, as the public customer's user. */
  async loginPublic(publicId: string): Promise<Session> {
    const pair = await this.request<JwtPair>('POST', '/api/auth/login/public', {
      body: { publicId },
      auth: false,
    });
    return this.session.set(pair);
  }

  /**
   * Ends the session here first (so no poll still running sends its token), then revokes it on the
   * server. Never fails: a revocation that does not arrive leaves a token that expires on its own.
   */
  async logout(): Promise<void> {
    const session = this.session.session;
    this.session.clear();
    if (!session) return;
    try {
      await this.send('POST', '/api/auth/logout', {}, session.token);
    } catch {
      /* unreachable server: nothing more to do */
    }
  }

  currentUser(): Promise<User> {
    return this.request('GET', '/api/auth/user');
  }

  async changePassword(body: ChangePasswordRequest): Promise<Session> {
    const pair = await this.request<JwtPair>('POST', '/api/auth/changePassword', { body });
    return this.session.set(pair);
  }

  demoLogins(): Promise<DemoLogins> {
    return this.request('GET', '/api/noauth/demoLogins', { auth: false });
  }

  // --- platform ---------------------------------------------------------------------------------

  platformInfo(): Promise<PlatformInfo> {
    return this.request('GET', '/api/sandboard/info');
  }

  stats(): Promise<PlatformStats> {
    return this.request('GET', '/api/sandboard/stats');
  }

  // --- devices ----------------------------------------------------------------------------------

  /** The devices the user may see: the tenant's (administrator) or its customer's (customer user). */
  devices(query: DevicePageQuery, customerId?: string): Promise<PageData<Device>> {
    const path = customerId ? `/api/customer/${enc(customerId)}/devices` : '/api/tenant/devices';
    return this.request('GET', path, { query: { ...query } });
  }

  deviceInfos(query: DeviceInfoPageQuery, customerId?: string): Promise<PageData<DeviceInfo>> {
    const path = customerId ? `/api/customer/${enc(customerId)}/deviceInfos` : '/api/tenant/deviceInfos';
    return this.request('GET', path, { query: { ...query } });
  }

  deviceTypes(): Promise<EntitySubtype[]> {
    return this.request('GET', '/api/device/types');
  }

  /** Each device's lastActivityTime server attribute (ms), by device id; a device that never sent is left out. */
  async lastActivityTimes(deviceIds: string[]): Promise<Record<string, number>> {
    if (deviceIds.length === 0) return {};
    const page = await this.request<{
      data: { entityId: { id: string }; latest: Record<string, Record<string, { value: unknown }>> }[];
    }>('POST', '/api/entitiesQuery/find', {
      body: {
        entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: deviceIds },
        pageLink: { page: 0, pageSize: deviceIds.length },
        latestValues: [{ type: 'SERVER_ATTRIBUTE', key: 'lastActivityTime' }],
      },
    });
    const times: Record<string, number> = {};
    for (const row of page.data) {
      const value = Number(row.latest.SERVER_ATTRIBUTE?.lastActivityTime?.value);
      if (Number.isFinite(value) && value > 0) times[row.entityId.id] = value;
    }
    return times;
  }

  device(id: string): Promise<Device> {
    return this.request('GET', `/api/device/${enc(id)}`);
  }

  saveDevice(body: SaveDeviceRequest, accessToken?: string): Promise<Device> {
    return this.request('POST', '/api/device', { body, query: { accessToken } });
  }

  deleteDevice(id: string): Promise<void> {
    return this.request('DELETE', `/api/device/${enc(id)}`);
  }

  credentials(deviceId: string): Promise<DeviceCredentials> {
    return this.request('GET', `/api/device/${enc(deviceId)}/credentials`);
  }

  saveCredentials(deviceId: string, body: SaveDeviceCredentialsRequest): Promise<DeviceCredentials> {
    return this.request('POST', `/api/device/${enc(deviceId)}/credentials`, { body });
  }

  // --- attributes and telemetry (of a device unless entityType says otherwise) ------------------

  attributes(deviceId: string, scope: AttributeScope, entityType = 'DEVICE'): Promise<AttributeData[]> {
    return this.request(
      'GET',
      `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/values/attributes/${scope}`,
    );
  }

  saveAttributes(
    deviceId: string,
    scope: AttributeScope,
    values: Record<string, unknown>,
    entityType = 'DEVICE',
  ): Promise<void> {
    return this.request(
      'POST',
      `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/attributes/${scope}`,
      {
        body: values,
      },
    );
  }

  deleteAttributes(
    deviceId: string,
    scope: AttributeScope,
    keys: string[],
    entityType = 'DEVICE',
  ): Promise<void> {
    return this.request('DELETE', `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/${scope}`, {
      query: { keys: keys.join(',') },
    });
  }

  timeseriesKeys(deviceId: string, entityType = 'DEVICE'): Promise<string[]> {
    return this.request('GET', `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/keys/timeseries`);
  }

  /** The latest value of every key, with JSON types kept. */
  latestTelemetry(deviceId: string, entityType = 'DEVICE'): Promise<TimeseriesData> {
    return this.request(
      'GET',
      `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/values/timeseries`,
      {
        query: { useStrictDataTypes: true },
      },
    );
  }

  history(deviceId: string, q: HistoryQuery, entityType = 'DEVICE'): Promise<TimeseriesData> {
    return this.request(
      'GET',
      `/api/plugins/telemetry/${enc(entityType)}/${enc(deviceId)}/values/timeseries`,
      {
        query: {
          keys: q.keys.join(','),
          startTs: q.startTs,
          endTs: q.endTs,
          limit: q.limit,
          agg: q.agg,
          interval: q.interval,
          orderBy: q.orderBy,
          useStrictDataTypes: true,
        },
      },
    );
  }

  // --- rule chains ------------------------------------------------------------------------------

  ruleChainMetadata(id: string): Promise<RuleChainMetadata> {
    return this.request('GET', `/api/ruleChain/${enc(id)}/metadata`);
  }

  ruleNodeTypes(): Promise<RuleNodeType[]> {
    return this.request('GET', '/api/ruleNode/types');
  }

  /** Saves a chain's nodes and connections; a 400 names the field, e.g. "nodes[6].configuration (Push): …". */
  saveRuleChainMetadata(metadata: RuleChainMetadata): Promise<RuleChainMetadata> {
    return this.request('POST', '/api/ruleChain/metadata', { body: metadata });
  }

  /** Runs a node's script once on a sample message in the sandbox: {output, error}. */
  testScript(body: TestScriptRequest, scriptLang: 'JS' | 'TBEL'): Promise<TestScriptResponse> {
    return this.request('POST', '/api/ruleChain/testScript', { query: { scriptLang }, body });
  }

  customer(id: string): Promise<Customer> {
    return this.request('GET', `/api/customer/${enc(id)}`);
  }

  // --- RPC and claiming -------------------------------------------------------------------------

  /**
   * Sends an RPC once. A timeout comes back as 504 (ThingsBoard's answer on RPC v2, asked for explicitly):
   * Chromium (and Electron) sends a request that got 408 on a reused connection again, which would be a
   * second command.
   */
  rpc(deviceId: string, kind: RpcKind, body: RpcRequest): Promise<unknown> {
    return this.request('POST', `/api/rpc/${kind}/${enc(deviceId)}`, {
      body,
      headers: { [TIMEOUT_STATUS_HEADER]: '504' },
    });
  }

  /** Claims a device as a customer user; FAILURE and CLAIMED (the server's 400 answers) resolve too. */
  async claimDevice(deviceName: string, secretKey: string): Promise<ClaimOutcome> {
    try {
      return await this.request<ClaimOutcome>('POST', `/api/customer/device/${enc(deviceName)}/claim`, {
        body: { secretKey },
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        const answer = typeof err.body === 'string' ? err.body.replaceAll('"', '').trim() : '';
        if (answer === 'FAILURE' || answer === 'CLAIMED') return { response: answer };
      }
      throw err;
    }
  }

  /** Gives a claimed device back to the tenant. */
  reclaimDevice(deviceName: string): Promise<Device> {
    return this.request('DELETE', `/api/customer/device/${enc(deviceName)}/claim`);
  }

  // --- gateway simulations ----------------------------------------------------------------------

  simulations(): Promise<SimulationSummary[]> {
    return this.request('GET', '/api/sandboard/simulations');
  }

  simulation(id: string): Promise<SimulationDetails> {
    return this.request('GET', `/api/sandboard/simulations/${enc(id)}`);
  }

  /** A 400 names the scenario's bad JSON path. */
  createSimulation(scenario: unknown): Promise<SimulationDetails> {
    return this.request('POST', '/api/sandboard/simulations', { body: scenario });
  }

  /** Imports a scenario file (a taken name gets " (2)"). */
  importSimulation(scenario: unknown): Promise<SimulationDetails> {
    return this.request('POST', '/api/sandboard/simulations/import', { body: scenario });
  }

  updateSimulation(id: string, scenario: unknown): Promise<SimulationDetails> {
    return this.request('PUT', `/api/sandboard/simulations/${enc(id)}`, { body: scenario });
  }

  deleteSimulation(id: string): Promise<void> {
    return this.request('DELETE', `/api/sandboard/simulations/${enc(id)}`);
  }

  /** Starts a run; without overrides no body (and no content type) is sent. */
  startSimulation(
    id: string,
    overrides?: { durationMs?: number; messages?: number },
  ): Promise<SimulationSummary> {
    return this.request('POST', `/api/sandboard/simulations/${enc(id)}/start`, { body: overrides });
  }

  stopSimulation(id: string): Promise<SimulationSummary> {
    return this.request('POST', `/api/sandboard/simulations/${enc(id)}/stop`);
  }

  simulationStatus(id: string): Promise<SimulationStatus> {
    return this.request('GET', `/api/sandboard/simulations/${enc(id)}/status`);
  }

  /** The summary of the current or last run (404 before the first). */
  simulationReport(id: string): Promise<SimulationReport> {
    return this.request('GET', `/api/sandboard/simulations/${enc(id)}/report`);
  }

  /** The scenario file, as `sandboard simulate` and import take it. */
  exportSimulation(id: string): Promise<Scenario> {
    return this.request('GET', `/api/sandboard/simulations/${enc(id)}/export`);
  }

  // --- edges ------------------------------------------------------------------------------------

  edges(query: EdgePageQuery): Promise<PageData<Edge>> {
    return this.request('GET', '/api/tenant/edges', { query: { ...query } });
  }

  /** Creates (the answer carries the secret, once) or updates an edge. */
  saveEdge(body: SaveEdgeRequest): Promise<Edge> {
    return this.request('POST', '/api/edge', { body });
  }

  deleteEdge(id: string): Promise<void> {
    return this.request('DELETE', `/api/edge/${enc(id)}`);
  }

  edgeDevices(edgeId: string, page = 0, pageSize = 100): Promise<PageData<Device>> {
    return this.request('GET', `/api/edge/${enc(edgeId)}/devices`, {
      query: { page, pageSize, sortProperty: 'name', sortOrder: 'ASC' },
    });
  }

  assignDeviceToEdge(edgeId: string, deviceId: string): Promise<Device> {
    return this.request('POST', `/api/edge/${enc(edgeId)}/device/${enc(deviceId)}`);
  }

  unassignDeviceFromEdge(edgeId: string, deviceId: string): Promise<Device> {
    return this.request('DELETE', `/api/edge/${enc(edgeId)}/device/${enc(deviceId)}`);
  }

  edgeQueueCounts(edgeId: string): Promise<EdgeQueueCounts> {
    return this.request('GET', `/api/edge/${enc(edgeId)}/queue`);
  }

  edgeEvents(edgeId: string, query: EdgeEventQuery): Promise<PageData<EdgeEvent>> {
    return this.request('GET', `/api/edge/${enc(edgeId)}/events`, { query: { ...query } });
  }

  // --- simulated edges --------------------------------------------------------------------------

  edgeSimulators(): Promise<EdgeSimulatorSummary[]> {
    return this.request('GET', '/api/sandboard/edgeSimulators');
  }

  edgeSimulator(id: string): Promise<EdgeSimulatorDetails> {
    return this.request('GET', `/api/sandboard/edgeSimulators/${enc(id)}`);
  }

  startEdgeSimulator(body: StartEdgeSimulatorRequest): Promise<EdgeSimulatorDetails> {
    return this.request('POST', '/api/sandboard/edgeSimulators', { body });
  }

  pauseEdgeSimulator(id: string): Promise<EdgeSimulatorSummary> {
    return this.request('POST', `/api/sandboard/edgeSimulators/${enc(id)}/pause`);
  }

  resumeEdgeSimulator(id: string): Promise<EdgeSimulatorSummary> {
    return this.request('POST', `/api/sandboard/edgeSimulators/${enc(id)}/resume`);
  }

  setEdgeSimulatorRate(id: string, body: SetEdgeSimulatorRateRequest): Promise<EdgeSimulatorSummary> {
    return this.request('POST', `/api/sandboard/edgeSimulators/${enc(id)}/rate`, { body });
  }

  cutOffEdgeSimulator(id: string, body: CutOffEdgeRequest): Promise<EdgeSimulatorSummary> {
    return this.request('POST', `/api/sandboard/edgeSimulators/${enc(id)}/cutOff`, { body });
  }

  setEdgeSimulatorFaults(id: string, body: EdgeReceiveFaults): Promise<EdgeSimulatorSummary> {
    return this.request('POST', `/api/sandboard/edgeSimulators/${enc(id)}/faults`, { body });
  }

  stopEdgeSimulator(id: string): Promise<void> {
    return this.request('DELETE', `/api/sandboard/edgeSimulators/${enc(id)}`);
  }

  /** Adds push to edge after Save Timeseries, creates an edge, assigns a simulated gateway's devices, starts a simulated edge. */
  runEdgeSyncDemo(): Promise<EdgeSyncDemo> {
    return this.request('POST', '/api/sandboard/demo/edge-sync');
  }

  // --- API keys ---------------------------------------------------------------------------------

  apiKeys(userId: string, page = 0, pageSize = 100): Promise<PageData<ApiKey>> {
    return this.request('GET', `/api/apiKeys/${enc(userId)}`, {
      query: { page, pageSize, sortProperty: 'createdTime', sortOrder: 'DESC' },
    });
  }

  createApiKey(body: CreateApiKeyRequest): Promise<CreatedApiKey> {
    return this.request('POST', '/api/apiKey', { body });
  }

  setApiKeyEnabled(id: string, enabled: boolean): Promise<ApiKey> {
    return this.request('PUT', `/api/apiKey/${enc(id)}/enabled/${enabled}`);
  }

  deleteApiKey(id: string): Promise<void> {
    return this.request('DELETE', `/api/apiKey/${enc(id)}`);
  }
}
