/** React Query hooks over the one API client. Live data arrives through the WebSocket (live/). */
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { CreateApiKeyRequest } from '../../../shared/schemas/auth.ts';
import type { SaveDeviceRequest } from '../../../shared/schemas/entities.ts';
import { useApi, useSession } from './api-context.tsx';
import type { SaveEdgeRequest } from '../../../shared/schemas/edge.ts';
import type { TestScriptRequest } from '../../../shared/schemas/rule-script.ts';
import type {
  EdgeReceiveFaults,
  SetEdgeSimulatorRateRequest,
  StartEdgeSimulatorRequest,
} from '../../../shared/schemas/edge-simulator.ts';
import type {
  AttributeScope,
  DeviceInfoPageQuery,
  DevicePageQuery,
  EdgeEventQuery,
  EdgePageQuery,
  RpcKind,
  RpcRequest,
  RuleChainMetadata,
  EdgeSimulatorSummary,
  SimulationStatus,
  SimulationSummary,
  TimeseriesData,
} from './client.ts';
import type { SimulationState } from '../../../shared/schemas/simulation.ts';
import { queryKeys, type HistoryWindow } from './query-keys.ts';
import type { SandboardBridge } from '../../../shared/desktop-bridge.ts';

/** Ranges above this are fetched aggregated (AVG) instead of raw points. */
export const RAW_HISTORY_MAX_RANGE_MS = 60 * 60_000;
const RAW_HISTORY_LIMIT = 5_000;
const AGGREGATED_BUCKETS = 300;

export function useCurrentUser() {
  const client = useApi();
  const session = useSession();
  return useQuery({
    queryKey: queryKeys.currentUser,
    queryFn: () => client.currentUser(),
    enabled: session !== null,
    staleTime: 60_000,
  });
}

export function useDemoLogins() {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.demoLogins,
    queryFn: () => {
      // a desktop install's demo passwords are random and only its preload bridge hands them out
      const desktop = (window as Window & { sandboard?: Partial<SandboardBridge> }).sandboard;
      return desktop?.demoLogins ? desktop.demoLogins() : client.demoLogins();
    },
    staleTime: 0,
  });
}

export function usePlatformInfo() {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.platformInfo,
    queryFn: () => client.platformInfo(),
    staleTime: Infinity,
  });
}

/** The overview's counters: fetched once, then kept current by the WebSocket's stats messages. */
export function useStats() {
  const client = useApi();
  return useQuery({ queryKey: queryKeys.stats, queryFn: () => client.stats(), staleTime: Infinity });
}

/** A customer user lists its customer's devices; a tenant administrator the tenant's. */
export function useDeviceOwnerScope(): { customerId: string | undefined; ready: boolean; canEdit: boolean } {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  return {
    customerId: user.data && !isAdmin ? user.data.customerId.id : undefined,
    ready: user.data !== undefined,
    canEdit: isAdmin,
  };
}

export function useDevices(query: DevicePageQuery) {
  const client = useApi();
  const scope = useDeviceOwnerScope();
  return useQuery({
    queryKey: queryKeys.devices(query, scope.customerId),
    queryFn: () => client.devices(query, scope.customerId),
    enabled: scope.ready,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
}

/** How often the device list asks again for each device's status and last activity. */
const DEVICE_STATUS_REFRESH_MS = 5_000;

/** Devices with their status, by ThingsBoard's device info filter; refreshed while shown. */
export function useDeviceInfos(query: DeviceInfoPageQuery) {
  const client = useApi();
  const scope = useDeviceOwnerScope();
  return useQuery({
    queryKey: queryKeys.deviceInfos(query, scope.customerId),
    queryFn: () => client.deviceInfos(query, scope.customerId),
    enabled: scope.ready,
    placeholderData: keepPreviousData,
    refetchInterval: DEVICE_STATUS_REFRESH_MS,
  });
}

export function useLastActivityTimes(deviceIds: string[]) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.lastActivity(deviceIds),
    queryFn: () => client.lastActivityTimes(deviceIds),
    enabled: deviceIds.length > 0,
    placeholderData: keepPreviousData,
    refetchInterval: DEVICE_STATUS_REFRESH_MS,
  });
}

export function useDeviceTypes() {
  const client = useApi();
  return useQuery({ queryKey: queryKeys.deviceTypes, queryFn: () => client.deviceTypes() });
}

export function useDevice(id: string) {
  const client = useApi();
  return useQuery({ queryKey: queryKeys.device(id), queryFn: () => client.device(id), staleTime: Infinity });
}

export function useDeviceCredentials(id: string) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.credentials(id),
    queryFn: () => client.credentials(id),
    staleTime: Infinity,
  });
}

export function useAttributes(id: string, scope: AttributeScope, entityType = 'DEVICE') {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.attributes(id, scope),
    queryFn: () => client.attributes(id, scope, entityType),
    staleTime: Infinity,
  });
}

export function useTimeseriesKeys(id: string, entityType = 'DEVICE') {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.timeseriesKeys(id),
    queryFn: () => client.timeseriesKeys(id, entityType),
    staleTime: Infinity,
  });
}

export function useLatestTelemetry(id: string, entityType = 'DEVICE') {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.latestTelemetry(id),
    queryFn: () => client.latestTelemetry(id, entityType),
    // the WebSocket follows devices; other entities' latest values are fetched again now and then
    refetchInterval: entityType === 'DEVICE' ? false : 5_000,
    staleTime: Infinity,
  });
}

/** Sorts each key's points oldest first, as charts draw them. */
function ascending(data: TimeseriesData): TimeseriesData {
  const out: TimeseriesData = {};
  for (const [key, points] of Object.entries(data)) out[key] = [...points].sort((a, b) => a.ts - b.ts);
  return out;
}

/** History of keys over the last `rangeMs`: raw points for short ranges, averages for long ones. */
export function useHistory(id: string, window: HistoryWindow, entityType = 'DEVICE') {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.history(id, window),
    queryFn: async () => {
      const endTs = Date.now();
      const startTs = endTs - window.rangeMs;
      const raw = window.rangeMs <= RAW_HISTORY_MAX_RANGE_MS;
      const data = await client.history(
        id,
        {
          keys: window.keys,
          startTs,
          endTs,
          ...(raw
            ? { limit: RAW_HISTORY_LIMIT, orderBy: 'DESC' as const }
            : {
                agg: 'AVG' as const,
                interval: Math.max(1000, Math.floor(window.rangeMs / AGGREGATED_BUCKETS)),
                limit: AGGREGATED_BUCKETS + 2,
                orderBy: 'ASC' as const,
              }),
        },
        entityType,
      );
      return ascending(data);
    },
    enabled: window.keys.length > 0,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
}

export function useApiKeys(userId: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.apiKeys(userId ?? ''),
    queryFn: () => client.apiKeys(userId!),
    enabled: userId !== undefined,
  });
}

export function useRuleChainMetadata(id: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.ruleChainMetadata(id ?? ''),
    queryFn: () => client.ruleChainMetadata(id!),
    enabled: id !== undefined,
  });
}

export function useCustomer(id: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.customer(id ?? ''),
    queryFn: () => client.customer(id!),
    enabled: id !== undefined,
    staleTime: 60_000,
  });
}

export function useRuleNodeTypes(enabled: boolean) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.ruleNodeTypes,
    queryFn: () => client.ruleNodeTypes(),
    enabled,
    staleTime: Infinity,
  });
}

/** Simulations are polled while shown: their counters move every second. */
export function useSimulations(enabled = true, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.simulations,
    queryFn: () => client.simulations(),
    refetchInterval: refreshMs,
    enabled,
  });
}

export function useSimulation(id: string) {
  const client = useApi();
  return useQuery({ queryKey: queryKeys.simulation(id), queryFn: () => client.simulation(id) });
}

export function useSimulationStatus(id: string, refreshMs = 1_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.simulationStatus(id),
    queryFn: () => client.simulationStatus(id),
    refetchInterval: refreshMs,
  });
}

export function useEdges(query: EdgePageQuery, enabled = true) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.edges(query),
    queryFn: () => client.edges(query),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useEdgeDevices(edgeId: string) {
  const client = useApi();
  return useQuery({ queryKey: queryKeys.edgeDevices(edgeId), queryFn: () => client.edgeDevices(edgeId) });
}

export function useEdgeQueueCounts(edgeId: string, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.edgeQueueCounts(edgeId),
    queryFn: () => client.edgeQueueCounts(edgeId),
    refetchInterval: refreshMs,
  });
}

export function useEdgeEvents(edgeId: string, query: EdgeEventQuery, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.edgeEvents(edgeId, query),
    queryFn: () => client.edgeEvents(edgeId, query),
    placeholderData: keepPreviousData,
    refetchInterval: refreshMs,
  });
}

/** The secret of an edge created in this session (the server shows it once), or undefined. */
export function useEdgeSecret(edgeId: string): string | undefined {
  const qc = useQueryClient();
  const { data } = useQuery<string | null>({
    queryKey: queryKeys.edgeSecret(edgeId),
    queryFn: () => qc.getQueryData<string>(queryKeys.edgeSecret(edgeId)) ?? null,
    enabled: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  return data ?? undefined;
}

export function useEdgeSimulators(enabled = true, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.edgeSimulators,
    queryFn: () => client.edgeSimulators(),
    refetchInterval: refreshMs,
    enabled,
  });
}

export function useEdgeSimulator(id: string | undefined, refreshMs = 1_000) {
  const client = useApi();
  return useQuery({
    queryKey: queryKeys.edgeSimulator(id ?? ''),
    queryFn: () => client.edgeSimulator(id!),
    enabled: id !== undefined,
    refetchInterval: refreshMs,
  });
}

// --- mutations ---------------------------------------------------------------------------------

export function useSaveDevice() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body, accessToken }: { body: SaveDeviceRequest; accessToken?: string }) =>
      client.saveDevice(body, accessToken),
    onSuccess: (device) => {
      qc.setQueryData(queryKeys.device(device.id.id), device);
      void qc.invalidateQueries({ queryKey: queryKeys.devicesAll });
      void qc.invalidateQueries({ queryKey: queryKeys.credentials(device.id.id) });
    },
  });
}

export function useDeleteDevice() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteDevice(id),
    onSuccess: (_void, id) => {
      qc.removeQueries({ queryKey: queryKeys.device(id) });
      void qc.invalidateQueries({ queryKey: queryKeys.devicesAll });
    },
  });
}

export function useSaveCredentials(deviceId: string) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => client.saveCredentials(deviceId, { credentialsId: token }),
    onSuccess: (credentials) => qc.setQueryData(queryKeys.credentials(deviceId), credentials),
  });
}

export function useSaveAttributes(deviceId: string, scope: AttributeScope, entityType = 'DEVICE') {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (values: Record<string, unknown>) =>
      client.saveAttributes(deviceId, scope, values, entityType),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.attributes(deviceId, scope) }),
  });
}

export function useDeleteAttribute(deviceId: string, scope: AttributeScope, entityType = 'DEVICE') {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => client.deleteAttributes(deviceId, scope, [key], entityType),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.attributes(deviceId, scope) }),
  });
}

export function useCreateApiKey(userId: string | undefined) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKeyRequest) => client.createApiKey(body),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.apiKeys(userId ?? '') }),
  });
}

export function useSetApiKeyEnabled(userId: string | undefined) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => client.setApiKeyEnabled(id, enabled),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.apiKeys(userId ?? '') }),
  });
}

export function useDeleteApiKey(userId: string | undefined) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteApiKey(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.apiKeys(userId ?? '') }),
  });
}

export function useChangePassword() {
  const client = useApi();
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => client.changePassword(body),
  });
}

export function useTestScript() {
  const client = useApi();
  return useMutation({
    mutationFn: ({ body, scriptLang }: { body: TestScriptRequest; scriptLang: 'JS' | 'TBEL' }) =>
      client.testScript(body, scriptLang),
  });
}

export function useSaveRuleChainMetadata() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (metadata: RuleChainMetadata) => client.saveRuleChainMetadata(metadata),
    onSuccess: (saved) => {
      if (saved.ruleChainId) qc.setQueryData(queryKeys.ruleChainMetadata(saved.ruleChainId.id), saved);
      void qc.invalidateQueries({ queryKey: queryKeys.ruleChains });
      void qc.invalidateQueries({ queryKey: ['ruleChainNodeStatus'] });
    },
  });
}

export function useRpc(deviceId: string) {
  const client = useApi();
  return useMutation({
    mutationFn: ({ kind, body }: { kind: RpcKind; body: RpcRequest }) => client.rpc(deviceId, kind, body),
  });
}

export function useClaimDevice() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ deviceName, secretKey }: { deviceName: string; secretKey: string }) =>
      client.claimDevice(deviceName, secretKey),
    onSuccess: (outcome) => {
      if (outcome.response === 'SUCCESS') {
        qc.setQueryData(queryKeys.device(outcome.device.id.id), outcome.device);
        void qc.invalidateQueries({ queryKey: queryKeys.devicesAll });
      }
    },
  });
}

export function useReclaimDevice() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deviceName: string) => client.reclaimDevice(deviceName),
    onSuccess: (device) => {
      qc.setQueryData(queryKeys.device(device.id.id), device);
      void qc.invalidateQueries({ queryKey: queryKeys.devicesAll });
    },
  });
}

function useSimulationMutation<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => invalidateSimulations(qc),
  });
}

function invalidateSimulations(qc: QueryClient): void {
  void qc.invalidateQueries({ queryKey: queryKeys.simulations });
  void qc.invalidateQueries({ queryKey: ['simulation'] });
  void qc.invalidateQueries({ queryKey: ['simulationStatus'] });
}

export function useCreateSimulation() {
  const client = useApi();
  return useSimulationMutation((scenario: unknown) => client.createSimulation(scenario));
}

export function useImportSimulation() {
  const client = useApi();
  return useSimulationMutation((scenario: unknown) => client.importSimulation(scenario));
}

export function useUpdateSimulation(id: string) {
  const client = useApi();
  return useSimulationMutation((scenario: unknown) => client.updateSimulation(id, scenario));
}

export function useDeleteSimulation() {
  const client = useApi();
  return useSimulationMutation((id: string) => client.deleteSimulation(id));
}

export function useStartSimulation(id: string) {
  const client = useApi();
  return useSimulationMutation((overrides: { durationMs?: number; messages?: number } | undefined) =>
    client.startSimulation(id, overrides),
  );
}

/** When the user asked each simulation to stop (this page session): its rate chart ends there. */
const stopRequests = new Map<string, number>();

export function stopRequestedAt(id: string): number | undefined {
  return stopRequests.get(id);
}

/**
 * Stops a simulation. The cached state turns 'stopping' at once, so its rates read zero without
 * waiting for the next poll (a stopped run sends nothing, whatever its last seconds' rate said).
 */
export function useStopSimulation(id: string) {
  const client = useApi();
  const qc = useQueryClient();
  const stopping = <T extends { id?: string; state: SimulationState }>(s: T): T =>
    s.state === 'running' || s.state === 'starting' ? { ...s, state: 'stopping' } : s;
  return useMutation({
    mutationFn: () => client.stopSimulation(id),
    onMutate: async () => {
      stopRequests.set(id, Date.now());
      await qc.cancelQueries({ queryKey: queryKeys.simulationStatus(id) });
      await qc.cancelQueries({ queryKey: queryKeys.simulations });
      qc.setQueryData<SimulationStatus>(queryKeys.simulationStatus(id), (s) => s && stopping(s));
      qc.setQueryData<SimulationSummary[]>(queryKeys.simulations, (list) =>
        list?.map((s) => (s.id === id ? stopping(s) : s)),
      );
    },
    onSettled: () => invalidateSimulations(qc),
  });
}

export function useSaveEdge() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveEdgeRequest) => client.saveEdge(body),
    onSuccess: (edge) => {
      // the only time the secret is known: keep it in memory for the simulated edge
      if (edge.secret) {
        qc.setQueryDefaults(queryKeys.edgeSecretAll, { gcTime: Infinity, staleTime: Infinity });
        qc.setQueryData(queryKeys.edgeSecret(edge.id.id), edge.secret);
      }
      void qc.invalidateQueries({ queryKey: queryKeys.edgesAll });
    },
  });
}

export function useDeleteEdge() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteEdge(id),
    onSuccess: (_void, id) => {
      qc.removeQueries({ queryKey: queryKeys.edgeSecret(id) });
      void qc.invalidateQueries({ queryKey: queryKeys.edgesAll });
      void qc.invalidateQueries({ queryKey: queryKeys.edgeSimulators });
    },
  });
}

export function useEdgeAssignment(edgeId: string) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ deviceId, assign }: { deviceId: string; assign: boolean }) =>
      assign ? client.assignDeviceToEdge(edgeId, deviceId) : client.unassignDeviceFromEdge(edgeId, deviceId),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.edgeDevices(edgeId) });
      void qc.invalidateQueries({ queryKey: queryKeys.edgeQueueAll(edgeId) });
    },
  });
}

function useEdgeSimulatorMutation<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.edgeSimulators });
      void qc.invalidateQueries({ queryKey: ['edgeSimulator'] });
      void qc.invalidateQueries({ queryKey: ['edgeQueue'] });
    },
  });
}

export function useStartEdgeSimulator() {
  const client = useApi();
  return useEdgeSimulatorMutation((body: StartEdgeSimulatorRequest) => client.startEdgeSimulator(body));
}

export function usePauseEdgeSimulator() {
  const client = useApi();
  return useEdgeSimulatorMutation(({ id, pause }: { id: string; pause: boolean }) =>
    pause ? client.pauseEdgeSimulator(id) : client.resumeEdgeSimulator(id),
  );
}

export function useSetEdgeSimulatorRate() {
  const client = useApi();
  return useEdgeSimulatorMutation(({ id, body }: { id: string; body: SetEdgeSimulatorRateRequest }) =>
    client.setEdgeSimulatorRate(id, body),
  );
}

export function useCutOffEdgeSimulator() {
  const client = useApi();
  return useEdgeSimulatorMutation(({ id, durationMs }: { id: string; durationMs: number }) =>
    client.cutOffEdgeSimulator(id, { durationMs }),
  );
}

export function useSetEdgeSimulatorFaults() {
  const client = useApi();
  return useEdgeSimulatorMutation(({ id, faults }: { id: string; faults: EdgeReceiveFaults }) =>
    client.setEdgeSimulatorFaults(id, faults),
  );
}

/** Stops a simulated edge: it is gone, so its details are dropped, not asked for again (a 404). */
export function useStopEdgeSimulator() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.stopEdgeSimulator(id),
    onMutate: (id) => qc.cancelQueries({ queryKey: queryKeys.edgeSimulator(id) }),
    onSuccess: (_result, id) => {
      qc.setQueryData<EdgeSimulatorSummary[]>(queryKeys.edgeSimulators, (list) =>
        list?.filter((s) => s.id !== id),
      );
      qc.removeQueries({ queryKey: queryKeys.edgeSimulator(id) });
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.edgeSimulators });
      void qc.invalidateQueries({ queryKey: ['edgeQueue'] });
    },
  });
}

export function useRunEdgeSyncDemo() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => client.runEdgeSyncDemo(),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: queryKeys.edgesAll });
      void qc.invalidateQueries({ queryKey: queryKeys.edgeSimulators });
      void qc.invalidateQueries({ queryKey: queryKeys.simulations });
      void qc.invalidateQueries({ queryKey: ['ruleChainMetadata'] });
    },
  });
}
