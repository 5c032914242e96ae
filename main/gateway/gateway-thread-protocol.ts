/** What the app's gateway threads (gateway-thread.ts) and their worker (gateway-thread-worker.ts) exchange. */
import type {
  ConnectorCounters,
  OutgoingLogEntry,
  RequestLogEntry,
  RestEndpointInfo,
} from '../../shared/schemas/rest-connector.ts';
import type { LogLevel } from './connectors/rest/rest-connector.ts';

export interface GatewayThreadData {
  name: string;
  /** mqtt://host:port of the platform */
  platformUrl: string;
  /** the gateway device's access token */
  token: string;
  /** the saved rest.json, loaded (and checked) again in the thread */
  rawConfig: unknown;
  dataDir: string;
  bodyLimitBytes?: number;
  /** mqtts://: the trusted certificate (PEM), or no check at all */
  ca?: string;
  rejectUnauthorized?: boolean;
}

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
  | { kind: 'failed'; error: string; configError: boolean }
  | {
      [Op in GatewayThreadOp]: { kind: 'answer'; id: number; op: Op; value: GatewayThreadAnswers[Op] };
    }[GatewayThreadOp]
  | { kind: 'log'; level: LogLevel; line: string };
