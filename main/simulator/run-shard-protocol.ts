import type {
  AttributeLogEntry,
  Fault,
  FaultCount,
  FaultMarker,
  GatewayStatus,
  RpcLogEntry,
  ScriptErrorEntry,
} from '../../shared/schemas/simulation.ts';
import type { MeterDelta } from './counters.ts';
import type { GatewayConnection } from './mqtt-connection.ts';
import type { GatewayPlan } from './scenario.ts';

/** A gateway ready to run: its plan, where it connects, and (embedded) the id of its device. */
export interface RunGateway {
  plan: GatewayPlan;
  connection: GatewayConnection;
  deviceId?: string | null;
}

/** What a worker thread of a run is given: its share of the gateways and the run's settings. */
export interface ShardData {
  index: number;
  gateways: RunGateway[];
  maxPeriods?: number;
  faults?: Fault[];
}

export type ShardRequest =
  { op: 'start' } | { op: 'retry'; gateway: number; message: string } | { op: 'run' } | { op: 'stop' };

/** How the connection of one gateway went at the start. */
export type ConnectOutcome =
  { ok: true } | { ok: false; message: string; permanent: boolean; afterConnack: boolean };

/** A worker's news since its last tick: counters, gateway states, new log entries, its own CPU. */
export interface ShardTick {
  delta: MeterDelta;
  gateways: { status: GatewayStatus; connectRetries: number }[];
  attributeLog: Omit<AttributeLogEntry, 'seq'>[];
  rpcLog: Omit<RpcLogEntry, 'seq'>[];
  scriptLog: Omit<ScriptErrorEntry, 'seq'>[];
  /** fault counts of this worker's gateways, since the start */
  faults: FaultCount[];
  faultMarkers: Omit<FaultMarker, 'seq'>[];
  lastError: string | null;
  /** the message of a connection refused for the open-file limit, if any */
  openFileLimit: string | null;
  /** this thread's CPU since it started, µs */
  cpuUs: number;
}

export type ShardMessage =
  | { kind: 'ready' }
  | { kind: 'connected'; outcomes: ConnectOutcome[] }
  | { kind: 'tick'; tick: ShardTick }
  | { kind: 'stopped'; tick: ShardTick }
  | { kind: 'failed'; error: string };
