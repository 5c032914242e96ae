/**
 * A worker thread of a large run: it drives its share of the gateways (their MQTT clients, generators
 * and scripts) on its own event loop, and every half second sends the main thread what it counted.
 *
 * Messages in:  ShardRequest (start | retry | run | stop)
 * Messages out: ShardMessage (ready | connected | tick | stopped | failed)
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RingLog } from './counters.ts';
import { ConnectError, loadMqttModules, openFileLimitReached } from './mqtt-connection.ts';
import type { ShardData, ShardMessage, ShardRequest, ShardTick } from './run-shard-protocol.ts';
import { SimulationRun } from './simulation-run.ts';
import { threadCpuUs } from './thread-cpu.ts';

const TICK_MS = 500;

const port = parentPort;
if (!port) throw new Error('run-shard-worker.ts runs as a worker thread');
const data = workerData as ShardData;
const post = (message: ShardMessage) => port.postMessage(message);
const cpuAtStart = threadCpuUs();

/** Entries of a log newer than the last ones sent, oldest first. */
function newer<T extends object>(log: RingLog<T>, sent: { seq: number }): T[] {
  const entries = log.list().filter((e) => e.seq > sent.seq);
  if (entries.length) sent.seq = entries[0]!.seq;
  return entries.reverse().map(({ seq: _seq, ...e }) => e as unknown as T);
}

const run = new SimulationRun({
  gateways: data.gateways,
  ...(data.maxPeriods ? { maxPeriods: data.maxPeriods } : {}),
  ...(data.faults ? { faults: data.faults } : {}),
  onGatewayEnded: () => post({ kind: 'tick', tick: tick() }),
});
run.meter.delta(); // from here on the meter keeps what the next tick hands over
const sent = { attributes: { seq: 0 }, rpc: { seq: 0 }, script: { seq: 0 }, markers: { seq: 0 } };

function tick(): ShardTick {
  return {
    delta: run.meter.delta(),
    gateways: run.gateways.map((g) => ({ status: g.status(), connectRetries: g.connectRetries })),
    attributeLog: newer(run.attributeLog, sent.attributes),
    rpcLog: newer(run.rpcLog, sent.rpc),
    scriptLog: newer(run.scriptLog, sent.script),
    faults: run.faults.list(),
    faultMarkers: newer(run.faults.markers, sent.markers),
    lastError: run.lastError,
    openFileLimit: openFileLimitReached(),
    cpuUs: threadCpuUs() - cpuAtStart,
  };
}

const ticker = setInterval(() => post({ kind: 'tick', tick: tick() }), TICK_MS);

port.on('message', (request: ShardRequest) => {
  switch (request.op) {
    case 'start':
      void run.connectGateways().then(
        (results) =>
          post({
            kind: 'connected',
            outcomes: results.map((r) => {
              if (r.status === 'fulfilled') return { ok: true };
              const reason = r.reason as Error;
              return {
                ok: false,
                message: reason.message,
                permanent: !(reason instanceof ConnectError) || reason.permanent,
                afterConnack: reason instanceof ConnectError && reason.afterConnack,
              };
            }),
          }),
        (err: Error) => post({ kind: 'failed', error: err.message }),
      );
      return;
    case 'retry':
      run.gateways[request.gateway]?.retryLater(new ConnectError(request.message, false));
      return;
    case 'run':
      run.markRunning();
      return;
    case 'stop':
      void run.stop('stopped').then(() => {
        clearInterval(ticker);
        post({ kind: 'stopped', tick: tick() });
        port.close();
      });
      return;
  }
});
// every module is loaded: the main thread starts no thread's sockets before all threads are here, so
// one thread's connections cannot take the file descriptors another still needs to load its modules
loadMqttModules();
post({ kind: 'ready' });
