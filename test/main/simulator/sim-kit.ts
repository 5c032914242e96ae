import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import type {
  Scenario,
  SimulationDetails,
  SimulationStatus,
  SimulationSummary,
} from '../../../shared/schemas/simulation.ts';
import { okJson, type ApiPlatform } from '../api/api-kit.ts';
import type { TestPlatform } from '../../helpers/platform.ts';
import { SANDBOARD_BIN } from '../../helpers/serve-process.ts';

export const SAMPLE_FILE = new URL('../../../shared/scenarios/smart-building-gateway.json', import.meta.url);
export const BASE = '/api/sandboard/simulations';

/** The sample scenario (2 gateways x 5 devices), optionally with another period for every gateway. */
export function sampleScenario(periodMs?: number): Scenario {
  const s = JSON.parse(readFileSync(SAMPLE_FILE, 'utf8')) as Scenario;
  if (periodMs !== undefined) for (const g of s.gateways) g.periodMs = periodMs;
  return s;
}

/** The simulation endpoints as a tenant administrator. */
export function simulationApi(p: TestPlatform | ApiPlatform, token: string) {
  return {
    create: (scenario: unknown) =>
      okJson<SimulationDetails>(p.http(BASE, { method: 'POST', token, json: scenario })),
    start: (id: string, body?: unknown) =>
      okJson<SimulationSummary>(
        p.http(`${BASE}/${id}/start`, {
          method: 'POST',
          token,
          ...(body !== undefined ? { json: body } : {}),
        }),
      ),
    stop: (id: string) => okJson<SimulationSummary>(p.http(`${BASE}/${id}/stop`, { method: 'POST', token })),
    status: (id: string) => okJson<SimulationStatus>(p.http(`${BASE}/${id}/status`, { token })),
    list: () => okJson<SimulationSummary[]>(p.http(BASE, { token })),
    deviceId: async (name: string) =>
      (
        await okJson<{ id: { id: string } }>(
          p.http(`/api/tenant/devices?deviceName=${encodeURIComponent(name)}`, { token }),
        )
      ).id.id,
  };
}

/** Resolves with the ids of the first `count` distinct devices whose telemetry the platform stored. */
export function telemetryFromDevices(p: TestPlatform, count: number): Promise<Set<string>> {
  const seen = new Set<string>();
  return new Promise((resolve) => {
    const onTelemetry = ({ deviceId }: { deviceId: string }) => {
      seen.add(deviceId);
      if (seen.size < count) return;
      p.services.ctx.events.off('telemetry', onTelemetry);
      resolve(seen);
    };
    p.services.ctx.events.on('telemetry', onTelemetry);
  });
}

/**
 * Runs `sandboard simulate ...` as a real child process (stdout is a pipe, not a terminal), optionally
 * under a wrapping command such as prlimit.
 */
export async function simulateCli(
  args: string[],
  wrap: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [cmd, ...rest] = [...wrap, process.execPath, SANDBOARD_BIN, 'simulate', ...args];
  const child = spawn(cmd!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
