/**
 * `sandboard gateway --config rest.json --platform mqtt://HOST:PORT --token TOKEN [--data-dir DIR]`
 * (mqtts:// with --ca FILE or --insecure for a platform with a certificate of its own):
 * a gateway with the REST connector, connected to any ThingsBoard-compatible platform through the gateway
 * MQTT API. Prints one ready line (`sandboard gateway ready {json}`); SIGINT / SIGTERM stop it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatRestConfigIssues } from '../../shared/schemas/rest-connector.ts';
import { configFromEnv } from '../config.ts';
import { ensureSelfSignedCertificate } from './connectors/rest/certificates.ts';
import { loadRestConfig, RestConfigError } from './connectors/rest/config.ts';
import { GatewayRuntime } from './gateway-runtime.ts';

/** A mistake in how the command was called (exit code 2). */
export class GatewayUsageError extends Error {}

export interface GatewayArgs {
  configPath: string;
  platformUrl: string;
  token: string;
  dataDir: string;
  port?: number;
  selfSigned: boolean;
  insecure: boolean;
  /** PEM file of the certificate authority (or the self-signed certificate) of an mqtts:// platform */
  caPath?: string;
}

export function parseGatewayArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): GatewayArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      platform: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      'self-signed': { type: 'boolean' },
      insecure: { type: 'boolean' },
      ca: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.config) throw new GatewayUsageError('--config is required (the path of rest.json)');
  const token = values.token ?? env.SANDBOARD_GATEWAY_TOKEN;
  if (!token) throw new GatewayUsageError("--token is required (the gateway device's access token)");
  const platformUrl = values.platform ?? 'mqtt://127.0.0.1:1883';
  if (!/^mqtts?:\/\/[^/]+/.test(platformUrl))
    throw new GatewayUsageError(
      `--platform must be mqtt://HOST:PORT or mqtts://HOST:PORT, got '${platformUrl}'`,
    );
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new GatewayUsageError(`--port must be a port number from 0 to 65535, got '${values.port}'`);
  }
  return {
    configPath: resolve(values.config),
    platformUrl,
    token,
    dataDir: resolve(values['data-dir'] ?? configFromEnv(env).dataDir),
    ...(port !== undefined ? { port } : {}),
    selfSigned: values['self-signed'] ?? false,
    insecure: values.insecure ?? false,
    ...(values.ca !== undefined ? { caPath: resolve(values.ca) } : {}),
  };
}

/** Reads and checks rest.json; errors name the file and each bad JSON path. */
export function readRestConfigFile(path: string) {
  const text = readText(path);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  try {
    return loadRestConfig(raw);
  } catch (err) {
    if (err instanceof RestConfigError)
      throw new Error(
        `${path} is not a valid REST connector configuration:\n${formatRestConfigIssues(err.errors)}`,
        { cause: err },
      );
    throw err;
  }
}

/** A file's text; an error names the file (and what it is for) and why it cannot be read. */
function readText(path: string, what?: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot read ${what ? `${what} ` : ''}${path}: ${reason}`, { cause: err });
  }
}

export async function runGatewayCommand(argv: string[]): Promise<void> {
  const args = parseGatewayArgs(argv);
  const config = readRestConfigFile(args.configPath);
  const ca = args.caPath !== undefined ? readText(args.caPath, '--ca') : undefined;
  for (const w of config.warnings) process.stderr.write(`rest.json: ${w.path || '(file)'}: ${w.message}\n`);
  if (args.selfSigned) {
    const pair = await ensureSelfSignedCertificate(resolve(args.dataDir, 'certs'), config.server.host);
    config.server = { ...config.server, ssl: true, cert: pair.cert, key: pair.key };
  }
  const runtime = await GatewayRuntime.start({
    name: 'REST Connector',
    platformUrl: args.platformUrl,
    token: args.token,
    config,
    dataDir: args.dataDir,
    ...(args.port !== undefined ? { portOverride: args.port } : {}),
    ...(args.insecure ? { rejectUnauthorized: false } : {}),
    ...(ca !== undefined ? { ca } : {}),
    log: (level, line) => process.stderr.write(`${level}: ${line}\n`),
  });
  const ready = {
    platform: args.platformUrl,
    url: runtime.connector.baseUrl,
    endpoints: runtime.connector
      .endpoints()
      .map((e) => ({ method: e.method, url: e.url, security: e.security })),
  };
  process.stdout.write(`sandboard gateway ready ${JSON.stringify(ready)}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping the gateway\n`);
    runtime.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
