/** What the app's gateway threads (gateway-thread.ts) and their worker (gateway-thread-worker.ts) exchange. */
import type {
  ConnectorCounters,
  OutgoingLogEntry,
  RequestLogEntry,
  RestEndpointInfo,
} from '../../shared/schemas/rest-connector.ts';
import type { LogLevel } from './connectors/rest/rest-connector.ts';
import type { GatewayRuntimeOptions } from './gateway-runtime.ts';

/** The runtime's options that cross into the thread, with rest.json as saved (loaded again there). */
export type GatewayThreadData = Pick<
  GatewayRuntimeOptions,
  'name' | 'platformUrl' | 'token' | 'dataDir' | 'bodyLimitBytes' | 'ca' | 'rejectUnauthorized'
> & { rawConfig: unknown };

export interface GatewayThreadState {
  baseUrl: string | null;
  connected: boolean;
  counters: ConnectorCounters;
}

/** Each request's answer. */
export interface GatewayThreadAnswers {
  state: GatewayThreadState;
  requestLog: RequestLogEntry[];
  outgoingLog: OutgoingLogEntry[];
  endpoints: RestEndpointInfo[];
  /** the connector stopped listening and the MQTT session ended */
  stop: null;
}

export type GatewayThreadOp = keyof GatewayThreadAnswers;

export type GatewayThreadRequest =
  | { id: number; op: 'requestLog' | 'outgoingLog'; limit?: number }
  | { id: number; op: 'state' | 'endpoints' | 'stop' };

export type GatewayThreadMessage =
  | { kind: 'started'; state: GatewayThreadState }
  | { kind: 'failed'; error: string }
  | {
      [Op in GatewayThreadOp]: { kind: 'answer'; id: number; op: Op; value: GatewayThreadAnswers[Op] };
    }[GatewayThreadOp]
  | { kind: 'log'; level: LogLevel; line: string };
