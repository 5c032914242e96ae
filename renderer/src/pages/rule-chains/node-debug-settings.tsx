import { Button, Checkbox, Group, Stack, Switch, Text } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import type { RuleNodeJson } from '../../../../shared/rule-engine.ts';
import { formatTime } from '../../components/format.ts';
import { DEBUG_ALL_MINUTES, debugState, withDebug } from './node-debug-state.ts';

function minutesLeft(until: number, now: number): string {
  const min = Math.ceil((until - now) / 60_000);
  return min <= 1 ? 'less than a minute left' : `${min} min left`;
}

/**
 * ThingsBoard 4.x's debug settings of a node: failures (kept on) and every message for at most 15 minutes,
 * after which recording switches itself off. Takes effect when the chain is saved.
 */
export function NodeDebugSettings({
  node,
  onChange,
}: {
  node: RuleNodeJson;
  onChange: (patch: Pick<RuleNodeJson, 'debugMode' | 'debugSettings'>) => void;
}) {
  const [now, setNow] = useState(() => Date.now());
  const tick = useInterval(() => setNow(Date.now()), 10_000);
  useEffect(() => {
    tick.start();
    return tick.stop;
  }, [tick]);
  const state = debugState(node, now);
  return (
    <Stack gap={6} data-testid="node-debug-settings">
      <Text size="sm" fw={500}>
        Debug
      </Text>
      <Checkbox
        label="Failures"
        description="Records every message that goes to Failure, with its error"
        checked={state.failures}
        onChange={(e) => onChange(withDebug({ ...state, failures: e.currentTarget.checked }))}
        data-testid="node-debug-failures"
      />
      <Switch
        label="All messages"
        description={
          state.all
            ? state.until
              ? `In and out, until ${formatTime(state.until)} (${minutesLeft(state.until, now)}); then it switches itself off`
              : `In and out, for ${DEBUG_ALL_MINUTES} minutes from saving; then it switches itself off`
            : `Records every message in and out for ${DEBUG_ALL_MINUTES} minutes, then switches itself off`
        }
        checked={state.all}
        onChange={(e) =>
          onChange(withDebug({ failures: state.failures, all: e.currentTarget.checked, until: null }))
        }
        data-testid="node-debug-all"
      />
      {state.all && state.until !== null && (
        <Group>
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => onChange(withDebug({ failures: state.failures, all: true, until: null }))}
            data-testid="node-debug-restart"
          >
            {`${DEBUG_ALL_MINUTES} more minutes from saving`}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
