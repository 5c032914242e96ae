import { Anchor, Badge, Loader } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/api-context.tsx';
import type {
  GatewayState,
  RateSample,
  SimulationCounters,
  SimulationState,
} from '../../../../shared/schemas/simulation.ts';
import { navigate } from '../../router.tsx';

const STATE_COLORS: Record<SimulationState | GatewayState, string> = {
  running: 'teal',
  connected: 'teal',
  starting: 'yellow',
  connecting: 'yellow',
  reconnecting: 'orange',
  stopping: 'yellow',
  stopped: 'gray',
  finished: 'blue',
  failed: 'red',
};

export function StateBadge({ state, testId }: { state: SimulationState | GatewayState; testId?: string }) {
  return (
    <Badge variant="light" color={STATE_COLORS[state]} data-testid={testId} data-state={state}>
      {state}
    </Badge>
  );
}

/** True while a simulation has a run going (or about to). */
export function isActive(state: SimulationState): boolean {
  return state === 'running' || state === 'starting' || state === 'stopping';
}

/**
 * Messages per second as the UI shows them: a run that is not running sends nothing, so it reads zero
 * at once (the server's figure is an average of the last 5 s, which lingers after a stop).
 */
export function shownRate(state: SimulationState, counters: SimulationCounters): string {
  return (state === 'running' || state === 'starting' ? counters.messagesPerSecond : 0).toFixed(1);
}

/**
 * The rate chart's samples: for a run that has stopped (or is stopping), the whole seconds before the
 * stop began and then zero. The seconds of stopping carry the gateways' disconnect announcements,
 * which are not the scenario's traffic and drew a spike at the end.
 */
export function chartedHistory(
  history: RateSample[],
  state: SimulationState,
  stoppedAt: number | null,
  stopRequestedAt: number | undefined,
): RateSample[] {
  if (state === 'running' || state === 'starting') return history;
  const stopBegan = Math.min(stopRequestedAt ?? Infinity, stoppedAt ?? Infinity);
  if (stopBegan === Infinity) return history;
  const cut = Math.floor(stopBegan / 1000) * 1000;
  const before = history.filter((s) => s.ts < cut);
  if (before.length === 0) return before;
  return [...before, { ts: cut, sent: 0, acknowledged: 0, failed: 0 }];
}

/** "5" → "MQTT 5", "4" → "MQTT 3.1.1" */
export function mqttVersion(protocolVersion: number): string {
  return protocolVersion === 4 ? 'MQTT 3.1.1' : `MQTT ${protocolVersion}`;
}

/**
 * A simulated device's name, opening its page: the simulator knows devices by name, so the id is looked
 * up when clicked.
 */
export function DeviceNameLink({ name }: { name: string }) {
  const client = useApi();
  const [state, setState] = useState<'idle' | 'looking' | 'missing'>('idle');
  const open = async () => {
    setState('looking');
    try {
      const page = await client.devices({ page: 0, pageSize: 20, textSearch: name, sortProperty: 'name' });
      const device = page.data.find((d) => d.name === name);
      if (device) navigate(`/devices/${device.id.id}`);
      else setState('missing');
    } catch {
      setState('missing');
    }
  };
  return (
    <Anchor
      component="button"
      type="button"
      size="sm"
      onClick={() => void open()}
      data-testid="simulated-device-link"
      title={
        state === 'missing' ? 'Not created yet: it is provisioned when the simulation starts' : undefined
      }
      c={state === 'missing' ? 'dimmed' : undefined}
    >
      {name} {state === 'looking' && <Loader size={10} />}
    </Anchor>
  );
}
