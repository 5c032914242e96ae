/**
 * A gateway of the app in its own worker thread: its MQTT session with the platform and its REST
 * connector's HTTP server. The connector's request handling (HTTP parsing, authentication, converters,
 * custom converter code) then runs beside the platform's event loop instead of inside it, on another core,
 * and a converter that blocks cannot stall the broker or the store.
 *
 * Messages in:  GatewayThreadRequest ({id, op, limit?})
 * Messages out: GatewayThreadMessage (started | failed | answer | log)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadRestConfig } from './connectors/rest/config.ts';
import { GatewayRuntime } from './gateway-runtime.ts';
import type {
  GatewayThreadData,
  GatewayThreadMessage,
  GatewayThreadRequest,
  GatewayThreadState,
} from './gateway-thread-protocol.ts';

const port = parentPort;
if (!port) throw new Error('gateway-thread-worker.ts runs as a worker thread');
const { rawConfig, ...options } = workerData as GatewayThreadData;
const post = (message: GatewayThreadMessage) => port.postMessage(message);

async function start(): Promise<GatewayRuntime | null> {
  try {
    return await GatewayRuntime.start({
      ...options,
      config: loadRestConfig(rawConfig),
      untrustedCertificateHint:
        "give the connector the platform's CA certificate, or turn the certificate check off",
      log: (level, line) => post({ kind: 'log', level, line }),
    });
  } catch (err) {
    post({ kind: 'failed', error: (err as Error).message });
    return null;
  }
}

function serve(runtime: GatewayRuntime): void {
  const state = (): GatewayThreadState => ({
    baseUrl: runtime.connector.baseUrl,
    connected: runtime.gateway.connected,
    counters: { ...runtime.connector.counters },
  });
  port!.on('message', (request: GatewayThreadRequest) => {
    const { id } = request;
    switch (request.op) {
      case 'state':
        return post({ kind: 'answer', id, op: 'state', value: state() });
      case 'requestLog':
        return post({
          kind: 'answer',
          id,
          op: 'requestLog',
          value: runtime.connector.requestLog(request.limit),
        });
      case 'outgoingLog':
        return post({
          kind: 'answer',
          id,
          op: 'outgoingLog',
          value: runtime.connector.outgoingLog(request.limit),
        });
      case 'endpoints':
        return post({ kind: 'answer', id, op: 'endpoints', value: runtime.connector.endpoints() });
      case 'stop':
        void runtime.stop().finally(() => {
          post({ kind: 'answer', id, op: 'stop', value: null });
          port!.close();
        });
    }
  });
  post({ kind: 'started', state: state() });
}

const runtime = await start();
if (runtime) serve(runtime);
else port.close();
