import { SegmentedControl, Stack, Text } from '@mantine/core';
import { useCallback, useEffect } from 'react';
import { useApi, useSession } from '../api/api-context.tsx';
import {
  getUiScale,
  setUiScale,
  scaleForKey,
  toUiScale,
  UI_SCALE_SETTING,
  UI_SCALES,
  useUiScale,
  type UiScale,
} from './ui-scale.ts';

/**
 * The logged-in user's UI scale: read from their settings once logged in, saved there when changed,
 * and changed with Ctrl + / Ctrl - / Ctrl 0 anywhere in the app (instead of the browser's own zoom).
 */
export function useUserUiScale(): (scale: UiScale) => void {
  const client = useApi();
  const userId = useSession()?.userId;
  useEffect(() => {
    if (!userId) return;
    let current = true;
    client
      .request<Record<string, unknown>>('GET', '/api/user/settings')
      .then((settings) => {
        const saved = toUiScale(settings?.[UI_SCALE_SETTING]);
        if (current && saved) setUiScale(saved);
      })
      .catch(() => undefined); // the scale of this machine stays
    return () => {
      current = false;
    };
  }, [client, userId]);
  const choose = useCallback(
    (scale: UiScale) => {
      setUiScale(scale);
      void client
        .request('PUT', '/api/user/settings', { body: { [UI_SCALE_SETTING]: scale } })
        .catch(() => undefined);
    },
    [client],
  );
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const next = scaleForKey(e.key, getUiScale());
      if (next === undefined) return;
      e.preventDefault(); // the app's scale, not the browser's zoom on top of it
      choose(next);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [choose]);
  return choose;
}

/** The scale as three buttons (in the user menu). */
export function UiScaleControl({ onChange }: { onChange: (scale: UiScale) => void }) {
  const scale = useUiScale();
  return (
    <Stack gap={4} px="sm" py={6}>
      <Text size="xs" c="dimmed" id="ui-scale-label">
        Text size (Ctrl + / Ctrl − / Ctrl 0)
      </Text>
      <SegmentedControl
        size="xs"
        fullWidth
        aria-labelledby="ui-scale-label"
        data={UI_SCALES.map((s) => ({ value: String(s), label: `${s * 100} %` }))}
        value={String(scale)}
        onChange={(v) => onChange(toUiScale(v) ?? 1)}
        data-testid="ui-scale"
      />
    </Stack>
  );
}
