import { Button, Group, Popover, SegmentedControl, Select, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { Timewindow } from './dashboard-model.ts';
import { AGGREGATIONS, describeTimewindow, timeRange } from './timewindow.ts';

const SPANS = [
  ['1 minute', 60_000],
  ['5 minutes', 300_000],
  ['15 minutes', 900_000],
  ['1 hour', 3_600_000],
  ['6 hours', 21_600_000],
  ['1 day', 86_400_000],
  ['7 days', 604_800_000],
] as const;

const toLocal = (ms: number) =>
  new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** The dashboard's timewindow: realtime (last N) or history (last N, or a fixed range), with aggregation. */
export function TimewindowPicker({
  value,
  onChange,
}: {
  value: Timewindow | undefined;
  onChange: (tw: Timewindow) => void;
}) {
  const [open, setOpen] = useState(false);
  const r = timeRange(value);
  const history = value?.selectedTab === 1;
  const fixed = history && value?.history?.historyType === 1;
  const span = String(r.timeWindow);
  const agg = value?.aggregation?.type ?? 'AVG';
  const set = (tw: Partial<Timewindow>) => onChange({ ...value, ...tw });
  return (
    <Popover opened={open} onChange={setOpen} position="bottom-end" withArrow trapFocus>
      <Popover.Target>
        <Button variant="default" size="xs" onClick={() => setOpen((o) => !o)} data-testid="timewindow">
          {describeTimewindow(value)}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" w={300}>
          <SegmentedControl
            size="xs"
            data={[
              { value: 'realtime', label: 'Realtime' },
              { value: 'last', label: 'History: last' },
              { value: 'fixed', label: 'History: range' },
            ]}
            value={!history ? 'realtime' : fixed ? 'fixed' : 'last'}
            onChange={(v) =>
              v === 'realtime'
                ? set({ selectedTab: 0, realtime: { realtimeType: 0, timewindowMs: r.timeWindow } })
                : v === 'last'
                  ? set({ selectedTab: 1, history: { historyType: 0, timewindowMs: r.timeWindow } })
                  : set({
                      selectedTab: 1,
                      history: {
                        historyType: 1,
                        fixedTimewindow: { startTimeMs: r.startTs, endTimeMs: r.endTs },
                      },
                    })
            }
          />
          {fixed ? (
            <Group grow gap="xs">
              <TextInput
                type="datetime-local"
                size="xs"
                label="From"
                value={toLocal(r.startTs)}
                onChange={(e) => {
                  const start = new Date(e.currentTarget.value).getTime();
                  if (Number.isFinite(start))
                    set({
                      history: {
                        historyType: 1,
                        fixedTimewindow: { startTimeMs: start, endTimeMs: r.endTs },
                      },
                    });
                }}
              />
              <TextInput
                type="datetime-local"
                size="xs"
                label="To"
                value={toLocal(r.endTs)}
                onChange={(e) => {
                  const end = new Date(e.currentTarget.value).getTime();
                  if (Number.isFinite(end))
                    set({
                      history: {
                        historyType: 1,
                        fixedTimewindow: { startTimeMs: r.startTs, endTimeMs: end },
                      },
                    });
                }}
              />
            </Group>
          ) : (
            <Select
              size="xs"
              label="Last"
              data={SPANS.map(([label, ms]) => ({ value: String(ms), label }))}
              value={SPANS.some(([, ms]) => String(ms) === span) ? span : null}
              placeholder={describeTimewindow(value)}
              onChange={(v) => {
                const ms = Number(v);
                if (history) set({ history: { historyType: 0, timewindowMs: ms } });
                else set({ realtime: { realtimeType: 0, timewindowMs: ms } });
              }}
              allowDeselect={false}
              data-testid="timewindow-span"
            />
          )}
          <Select
            size="xs"
            label="Aggregation"
            data={AGGREGATIONS.map((a) => ({
              value: a,
              label: a === 'NONE' ? 'None (raw values)' : a.toLowerCase(),
            }))}
            value={agg}
            onChange={(v) => set({ aggregation: { ...value?.aggregation, type: v ?? 'AVG' } })}
            allowDeselect={false}
          />
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
