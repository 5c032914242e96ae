import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import type { Platform } from './app/start-platform.ts';
import { configFromEnv, type PlatformConfig } from './config.ts';
import { beginStore } from './app/store.ts';
import { DataDirLockedError } from './store/data-dir-lock.ts';
import { withoutAllocationSitePretenuring, workersGetDefaultYoungGeneration } from './store/worker-heap.ts';
import { describeStopCause, watchStopTriggers } from './stop-triggers.ts';
import { VERSION } from './version.ts';

const USAGE = `Sandboard ${VERSION}: a ThingsBoard-compatible IoT platform on one machine.

Usage:
  sandboard serve [options]     run the platform headless
  sandboard simulate FILE       run a gateway simulation scenario (JSON file) headless
  sandboard gateway --config rest.json --token TOKEN [options]
                                a gateway with the REST connector (thingsboard-gateway's rest.json)
  sandboard test-chain CHAIN.json CASES.json [--report junit.xml]
                                run a rule chain's test cases against a fresh in-memory Sandboard
                                (exit 0 all passed, 1 a case failed, 2 a malformed file)
  sandboard sandbox export|import FILE --data-dir DIR [options]
                                carry a whole set-up as one sandbox file, all or nothing on import
                                (sandboard sandbox --help; docs/sandboxes.md)
  sandboard replay FILE --http URL --mqtt URL (--username U --password P | --api-key K)
                   [--speed 1|N|max] [--assert] [--ignore PATH]... [--tolerance N]... [--report junit.xml]
                                replay a recording against a Sandboard or a real ThingsBoard and check
                                its outcomes (sandboard replay --help; exit 0 passed, 1 a check failed,
                                2 a malformed recording or one the target cannot take)

Options for serve:
  --data-dir DIR         data directory (env SANDBOARD_DATA_DIR; default: the OS's per-user app data dir)
  --host HOST            address to listen on (default 127.0.0.1)
  --http-port PORT       REST API, UI and explorer (default 8080; 0 picks a free port)
  --mqtt-port PORT       MQTT broker (default 1883; 0 picks a free port)
  --analytics-port PORT  report API (default 8888; 0 picks a free port)
  --reset-to FILE        trainer mode: reset the data to this sandbox file at every start
  --stop-with-parent     also stop when the process that started it exits or closes its stdin pipe
                         (npm run serve and npm start use it: npm dies of SIGHUP without passing it on)
  -h, --help             this text

Options for simulate:
  --platform URL         mqtt://HOST:PORT (mqtts:// for TLS) of a running platform; the gateways connect
                         with the tokens in the file (default: the scenario's target; an embedded target
                         starts an in-process platform on free ports)
  --duration TIME        stop after TIME: 30s, 5m, 500ms, 1h (default: the scenario's durationMs, else Ctrl-C)
  --data-dir DIR         data directory of the in-process platform (default: a temporary one, removed after)
  --report FILE          write the run's summary as JSON (sent, acknowledged, refused, faults, RPC, latency)
  --junit FILE           write the run's summary as JUnit XML, for CI
  --workers N            spread the gateways over N worker threads (0: none; default: the scenario's
                         workers, else one per core, less one beside the in-process platform, from
                         2,000 devices)

Options for gateway:
  --config FILE          rest.json, the REST connector's configuration (gateway 3.7+ or legacy format)
  --platform URL         mqtt://HOST:PORT (mqtts:// for TLS) of the platform (default mqtt://127.0.0.1:1883)
  --token TOKEN          the gateway device's access token (env SANDBOARD_GATEWAY_TOKEN)
  --data-dir DIR         custom converters in DIR/converters, certificates in DIR/certs (default: as serve)
  --port PORT            listen on PORT instead of the file's server.port (0 picks a free port)
  --self-signed          serve HTTPS with a self-signed certificate made in DIR/certs (needs openssl)
  --ca FILE              trust this PEM certificate (authority) for an mqtts:// platform
  --insecure             accept the platform's TLS certificate without checking it
`;

function port(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--${name} must be a port number from 0 to 65535, got '${value}'`);
  return n;
}

class UsageError extends Error {}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      host: { type: 'string' },
      'http-port': { type: 'string' },
      'mqtt-port': { type: 'string' },
      'analytics-port': { type: 'string' },
      'stop-with-parent': { type: 'boolean' },
      'reset-to': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const base = configFromEnv(env);
  return {
    ...base,
    dataDir: resolve(values['data-dir'] ?? base.dataDir),
    host: values.host ?? base.host,
    httpPort: port(values['http-port'], 'http-port', base.httpPort),
    mqttPort: port(values['mqtt-port'], 'mqtt-port', base.mqttPort),
    analyticsPort: port(values['analytics-port'], 'analytics-port', base.analyticsPort),
    ...(values['reset-to'] ? { resetTo: resolve(values['reset-to']) } : {}),
  };
}

/**
 * `sandboard startup {phase: ms since the process started, ..., cpu ms at ready}` on stderr, when
 * SANDBOARD_STARTUP_TIMINGS is set.
 */
function printStartupTimings(): void {
  const marks = performance.getEntriesByType('mark');
  performance.clearMarks();
  if (!process.env.SANDBOARD_STARTUP_TIMINGS) return;
  const phases = Object.fromEntries(marks.map((m) => [m.name, Math.round(m.startTime)]));
  // the CPU the start took (all threads): on a shared machine it says more than the wall times
  const cpu = process.cpuUsage();
  phases['cpu ms at ready'] = Math.round((cpu.user + cpu.system) / 1000);
  process.stderr.write(`sandboard startup ${JSON.stringify(phases)}\n`);
}

async function serve(argv: string[]): Promise<void> {
  performance.mark('cli: modules loaded');
  const config = parseServeArgs(argv);
  // read once: nothing this process starts (gateway threads, report workers) needs to see it
  delete process.env.SANDBOARD_SHELL_SECRET;
  // Stop is heard from the start: asked while starting, it stops as soon as the platform is up.
  let platform: Platform | null = null;
  let stopping = false;
  const finish = () =>
    platform!.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stop failed: ${(err as Error).stack ?? String(err)}\n`);
        process.exit(1);
      },
    );
  watchStopTriggers((cause) => {
    if (stopping) return;
    stopping = true;
    // After a hangup the terminal is gone and writing to it fails (EIO): that must not cut the stop short.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    const when = platform ? '' : ' once started';
    process.stderr.write(`${describeStopCause(cause)}: stopping${when} (flushing and writing a snapshot)\n`);
    if (platform) void finish();
  }, argv.includes('--stop-with-parent'));
  // The store opens (a long journal replaying on a worker thread) while the rest of the platform loads.
  const store = await beginStore(config);
  const { startPlatform } = await import('./app/start-platform.ts');
  performance.mark('cli: platform modules loaded');
  const started = await startPlatform(config, store);
  platform = started;
  if (stopping) {
    void finish();
    return;
  }
  for (const login of started.seededLogins) {
    process.stderr.write(
      config.randomDemoPasswords
        ? `First start: demo login ${login.email}, its password in ${config.dataDir}/demo-logins.json\n`
        : `First start: demo login ${login.email} / ${login.password}\n`,
    );
  }
  performance.mark('ready');
  printStartupTimings();
  process.stdout.write(`sandboard ready ${JSON.stringify(started.urls)}\n`);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  workersGetDefaultYoungGeneration();
  withoutAllocationSitePretenuring();
  try {
    switch (command) {
      case 'serve':
        await serve(rest);
        return;
      case 'simulate': {
        const headless = await import('./simulator/run-headless.ts');
        let options: ReturnType<typeof headless.parseSimulateArgs>;
        try {
          options = headless.parseSimulateArgs(rest);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        const { startPlatform } = await import('./app/start-platform.ts');
        const code = await headless.runSimulate(options, (dataDir) =>
          startPlatform({
            ...configFromEnv(process.env),
            dataDir,
            httpPort: 0,
            mqttPort: 0,
            analyticsPort: 0,
            logLevel: 'silent',
          }),
        );
        process.exitCode = code;
        setTimeout(() => process.exit(code), 2000).unref(); // should a handle linger
        return;
      }
      case 'gateway': {
        const gateway = await import('./gateway/gateway-command.ts');
        try {
          await gateway.runGatewayCommand(rest);
        } catch (err) {
          throw err instanceof gateway.GatewayUsageError ? new UsageError(err.message) : err;
        }
        return;
      }
      case 'test-chain': {
        const { runTestChainCommand } = await import('./app/test-chain-command.ts');
        const code = await runTestChainCommand(rest);
        process.exitCode = code;
        setTimeout(() => process.exit(code), 2000).unref(); // should a handle linger
        return;
      }
      case 'sandbox': {
        const { runSandboxCommand, SandboxUsageError } = await import('./app/sandbox-command.ts');
        let code: number;
        try {
          code = await runSandboxCommand(rest);
        } catch (err) {
          throw err instanceof SandboxUsageError ? new UsageError(err.message) : err;
        }
        process.exitCode = code;
        return;
      }
      case 'replay': {
        const { runReplayCommand } = await import('./replay/replay-command.ts');
        const code = await runReplayCommand(rest);
        process.exitCode = code;
        setTimeout(() => process.exit(code), 2000).unref(); // should a handle linger
        return;
      }
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(USAGE);
        return;
      default:
        throw new UsageError(`Unknown command '${command}'`);
    }
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`sandboard: ${err.message}\n`);
      process.exit(3);
    }
    process.stderr.write(`sandboard: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
