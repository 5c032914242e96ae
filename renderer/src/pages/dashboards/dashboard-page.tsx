import {
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Group,
  Menu,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
} from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useApi, useSessionStore } from '../../api/api-context.tsx';
import { useDashboardById, useSaveDashboard } from '../../api/dashboards-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageReady } from '../../components/page-ready.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';
import { Link } from '../../router.tsx';
import type { StateParams } from './aliases.ts';
import { DashboardContext, type DashboardContextValue } from './dashboard-context.tsx';
import { DashboardGrid } from './dashboard-grid.tsx';
import {
  GRID_COLUMNS,
  normalizeDashboard,
  rootStateId,
  type Dashboard,
  type Widget,
  type WidgetLayout,
} from './dashboard-model.ts';
import { TbSocket, type TbSocketStatus } from './tb-socket.ts';
import { TimewindowPicker } from './timewindow-picker.tsx';
import { PublicLinkMenu } from './public-link-menu.tsx';
import { WidgetEditor } from './widget-editor.tsx';
import { WIDGET_KINDS } from './widget-kinds.ts';

interface StateEntry {
  id: string;
  params: StateParams;
}

const SCALES = [1, 1.25, 1.5, 2] as const;

/** One socket to /api/ws for the page, open while it is. */
function usePageSocket(): { socket: TbSocket; status: TbSocketStatus } {
  const sessions = useSessionStore();
  const client = useApi();
  const socket = useMemo(
    () =>
      new TbSocket({
        token: () => sessions.session?.token ?? null,
        onUnauthenticated: async () => {
          if (sessions.session) await client.refreshSession();
        },
      }),
    [sessions, client],
  );
  const [status, setStatus] = useState<TbSocketStatus>(socket.status);
  useEffect(() => {
    const off = socket.onStatus(setStatus);
    socket.start();
    return () => {
      off();
      socket.stop();
    };
  }, [socket]);
  return { socket, status };
}

/** A state's name as the breadcrumbs show it: ${entityName} and ${entityLabel} filled in from its params. */
function stateLabel(dashboard: Dashboard, entry: StateEntry, withEntity = false): string {
  const s = dashboard.configuration.states[entry.id];
  const entityName = String(entry.params.entityName ?? '');
  const raw = s?.name ?? entry.id;
  const name = raw
    .replace(/\$\{entityName\}/g, entityName)
    .replace(/\$\{entityLabel\}/g, String(entry.params.entityLabel || entityName));
  if (withEntity && entityName && !raw.includes('${'))
    return `${name}: ${String(entry.params.entityLabel || entityName)}`;
  return name.trim() || entry.id;
}

/** The first free row under the layout's widgets. */
function nextRow(layout: Record<string, WidgetLayout>): number {
  return Math.max(0, ...Object.values(layout).map((l) => l.row + l.sizeY));
}

/** `publicView`: opened from a public link (no app around it, nothing to go back to). */
export default function DashboardPage({ params, publicView }: { params: PageParams; publicView?: boolean }) {
  const id = params.id!;
  const query = useDashboardById(id);
  const save = useSaveDashboard();
  const scope = useDeviceOwnerScope();
  const { socket, status } = usePageSocket();
  const [draft, setDraft] = useState<Dashboard | null>(null);
  const [editing, setEditing] = useState(
    () => new URLSearchParams(window.location.search).get('edit') === '1',
  );
  const [stack, setStack] = useState<StateEntry[]>([]);
  const [tw, setTw] = useState<Dashboard['configuration']['timewindow']>();
  const [editWidget, setEditWidget] = useState<string | null>(null);
  const [presenting, setPresenting] = useState(false);
  const [scale, setScale] = useState<number>(1);
  const [cycleSeconds, setCycleSeconds] = useState<number>(0);
  const presentRef = useRef<HTMLDivElement>(null);

  const loaded = useMemo(() => {
    if (!query.data) return null;
    try {
      return normalizeDashboard(query.data);
    } catch (err) {
      return err as Error;
    }
  }, [query.data]);
  const dashboard = draft ?? (loaded instanceof Error ? null : loaded);

  useEffect(() => {
    if (dashboard && stack.length === 0) setStack([{ id: rootStateId(dashboard), params: {} }]);
    if (dashboard && tw === undefined) setTw(dashboard.configuration.timewindow);
  }, [dashboard, stack.length, tw]);

  const current = stack[stack.length - 1];
  const visited = useRef(new Map<string, StateParams>());
  if (current && Object.keys(current.params).length > 0) visited.current.set(current.id, current.params);
  const stateIds = dashboard ? Object.keys(dashboard.configuration.states) : [];

  // unattended screen: the states one after another
  useEffect(() => {
    if (!presenting || cycleSeconds <= 0 || stateIds.length < 2) return;
    const timer = setInterval(() => {
      setStack((s) => {
        const at = stateIds.indexOf(s[s.length - 1]?.id ?? '');
        const next = stateIds[(at + 1) % stateIds.length]!;
        // a state about an entity shows the one it last showed
        return [{ id: next, params: visited.current.get(next) ?? {} }];
      });
    }, cycleSeconds * 1000);
    return () => clearInterval(timer);
  }, [presenting, cycleSeconds, stateIds.join('|')]);

  useEffect(() => {
    const onChange = () => {
      if (!document.fullscreenElement) setPresenting(false);
    };
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const ctx: DashboardContextValue | null = useMemo(
    () =>
      dashboard && current
        ? {
            socket,
            dashboard,
            stateId: current.id,
            params: current.params,
            timewindow: tw,
            interactive: !editing,
            openState: (stateId, p = {}) => {
              if (!dashboard.configuration.states[stateId]) return;
              setStack((s) => [...s, { id: stateId, params: p }]);
            },
          }
        : null,
    [socket, dashboard, current, tw, editing],
  );

  if (query.error) return <ErrorAlert error={query.error} />;
  if (loaded instanceof Error) return <ErrorAlert error={loaded} />;
  if (!dashboard || !ctx || !current) return <Text c="dimmed">Loading the dashboard…</Text>;

  const state =
    dashboard.configuration.states[current.id] ?? Object.values(dashboard.configuration.states)[0]!;
  const layout = state.layouts.main.widgets;

  const update = (fn: (d: Dashboard) => Dashboard) => setDraft(fn(structuredClone(dashboard)));
  const setLayout = (wid: string, l: WidgetLayout) =>
    update((d) => {
      d.configuration.states[current.id]!.layouts.main.widgets[wid] = l;
      return d;
    });
  const removeWidget = (wid: string) =>
    update((d) => {
      for (const s of Object.values(d.configuration.states)) delete s.layouts.main.widgets[wid];
      delete d.configuration.widgets[wid];
      return d;
    });
  const addWidget = (fqn: string) => {
    const kind = WIDGET_KINDS.find((k) => k.fqn === fqn)!;
    const wid = crypto.randomUUID();
    const firstAlias = Object.keys(dashboard.configuration.entityAliases)[0];
    const widget: Widget = {
      id: wid,
      typeFullFqn: fqn,
      type: kind.type,
      sizeX: 8,
      sizeY: 5,
      config: {
        title: kind.name,
        showTitle: true,
        useDashboardTimewindow: true,
        datasources:
          kind.type === 'rpc' || kind.type === 'static'
            ? []
            : [{ type: 'entity', entityAliasId: firstAlias, dataKeys: [] }],
        ...(kind.type === 'rpc' && firstAlias
          ? { targetDevice: { type: 'entity', entityAliasId: firstAlias } }
          : {}),
        settings: {},
      },
    };
    update((d) => {
      d.configuration.widgets[wid] = widget;
      d.configuration.states[current.id]!.layouts.main.widgets[wid] = {
        col: 0,
        row: nextRow(layout),
        sizeX: 8,
        sizeY: 5,
      };
      return d;
    });
    setEditWidget(wid);
  };
  const leaveEditing = () => {
    setEditing(false);
    // a reload opens the dashboard to look at, not to edit
    if (window.location.search.includes('edit=1'))
      window.history.replaceState(null, '', window.location.pathname);
  };
  const saveDraft = () => {
    if (!draft) {
      leaveEditing();
      return;
    }
    const body = {
      ...draft,
      configuration: { ...draft.configuration, timewindow: tw ?? draft.configuration.timewindow },
    };
    save.mutate(body, {
      onSuccess: () => {
        setDraft(null);
        leaveEditing();
      },
    });
  };
  const present = async () => {
    setPresenting(true);
    setEditing(false);
    try {
      await presentRef.current?.requestFullscreen();
    } catch {
      /* full screen refused (no user gesture, or a kiosk): present inside the window */
    }
  };
  const stopPresenting = () => {
    setPresenting(false);
    if (document.fullscreenElement) void document.exitFullscreen();
  };

  const crumbs = stack.map((entry, i) => {
    const label = stateLabel(dashboard, entry, i > 0);
    return i === stack.length - 1 ? (
      <Text key={i} size="sm" fw={600} data-testid="current-state">
        {label}
      </Text>
    ) : (
      <Anchor key={i} size="sm" component="button" onClick={() => setStack(stack.slice(0, i + 1))}>
        {label}
      </Anchor>
    );
  });

  return (
    <DashboardContext.Provider value={ctx}>
      <PageReady page="dashboard" />
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Stack gap={2}>
            <Group gap="xs">
              {!publicView && (
                <>
                  <Anchor component={Link} to="/dashboards" size="sm">
                    Dashboards
                  </Anchor>
                  <Text size="sm" c="dimmed">
                    /
                  </Text>
                </>
              )}
              <Text fw={700} size="lg" data-testid="dashboard-title">
                {dashboard.title}
              </Text>
              <Badge
                size="sm"
                variant="light"
                color={status === 'open' ? 'green' : status === 'reconnecting' ? 'orange' : 'gray'}
                data-testid="ws-status"
              >
                {status === 'open' ? 'live' : status}
              </Badge>
            </Group>
            {(stack.length > 1 || stateIds.length > 1) && <Breadcrumbs separator="›">{crumbs}</Breadcrumbs>}
          </Stack>
          <Group gap="xs" wrap="wrap">
            {stateIds.length > 1 && (
              <Select
                size="xs"
                aria-label="State"
                data={stateIds.map((s) => ({
                  value: s,
                  label: stateLabel(dashboard, { id: s, params: s === current.id ? current.params : {} }),
                }))}
                value={current.id}
                onChange={(v) => v && setStack([{ id: v, params: current.params }])}
                allowDeselect={false}
                w={160}
                data-testid="state-select"
              />
            )}
            <TimewindowPicker
              value={tw}
              onChange={(next) => (editing ? (setTw(next), update((d) => d)) : setTw(next))}
            />
            {editing ? (
              <>
                <Menu position="bottom-end">
                  <Menu.Target>
                    <Button size="xs" variant="default" data-testid="add-widget">
                      Add widget
                    </Button>
                  </Menu.Target>
                  <Menu.Dropdown>
                    {WIDGET_KINDS.map((k) => (
                      <Menu.Item key={k.fqn} onClick={() => addWidget(k.fqn)}>
                        {k.name}
                      </Menu.Item>
                    ))}
                  </Menu.Dropdown>
                </Menu>
                <Button size="xs" variant="default" onClick={() => (setDraft(null), leaveEditing())}>
                  Cancel
                </Button>
                <Button size="xs" onClick={saveDraft} loading={save.isPending} data-testid="save-dashboard">
                  Save
                </Button>
              </>
            ) : (
              <>
                {scope.canEdit && (
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() => setEditing(true)}
                    data-testid="edit-dashboard"
                  >
                    Edit
                  </Button>
                )}
                {scope.canEdit && !publicView && query.data && <PublicLinkMenu dashboard={query.data} />}
                <Button size="xs" onClick={() => void present()} data-testid="present-dashboard">
                  Present
                </Button>
              </>
            )}
          </Group>
        </Group>
        <ErrorAlert error={save.error} />
        {editing && (
          <Text size="xs" c="dimmed">
            Drag a widget to move it, its corner to resize it; or focus it (Tab) and use the arrow keys (Shift
            to resize), Enter to edit, Delete to remove.
          </Text>
        )}
        <div
          ref={presentRef}
          data-testid="dashboard-canvas"
          style={
            presenting
              ? {
                  background: 'var(--mantine-color-body)',
                  padding: 16,
                  overflow: 'auto',
                  height: '100vh',
                  width: '100vw',
                  position: document.fullscreenElement ? undefined : 'fixed',
                  inset: 0,
                  zIndex: 300,
                }
              : undefined
          }
        >
          {presenting && (
            <Group justify="space-between" mb="xs" data-testid="present-bar">
              <Text fw={700} style={{ fontSize: `${scale * 1.2}rem` }}>
                {dashboard.title} · {stateLabel(dashboard, current)}
              </Text>
              <Group gap="xs">
                {/* no dropdowns here: a portal outside the full-screen element would not show */}
                <SegmentedControl
                  size="xs"
                  aria-label="Scale"
                  data={SCALES.map((s) => ({ value: String(s), label: `${s * 100} %` }))}
                  value={String(scale)}
                  onChange={(v) => setScale(Number(v) || 1)}
                  data-testid="present-scale"
                />
                <NumberInput
                  size="xs"
                  w={150}
                  min={0}
                  max={3600}
                  aria-label="Cycle states every (s)"
                  placeholder="cycle every s"
                  leftSection="⟳"
                  value={cycleSeconds || ''}
                  onChange={(v) => setCycleSeconds(Math.max(0, Number(v) || 0))}
                  data-testid="present-cycle"
                />
                <Button size="xs" variant="default" onClick={stopPresenting}>
                  Exit
                </Button>
              </Group>
            </Group>
          )}
          <div style={presenting ? { zoom: scale } : undefined} data-testid="present-zoom">
            {Object.keys(layout).length === 0 ? (
              <Text c="dimmed" ta="center" py="xl">
                {editing ? 'No widgets in this state yet: Add widget.' : 'This state has no widgets.'}
              </Text>
            ) : (
              <DashboardGrid
                widgets={dashboard.configuration.widgets}
                layout={layout}
                editing={editing}
                onLayout={setLayout}
                onEditWidget={setEditWidget}
                onRemoveWidget={removeWidget}
              />
            )}
          </div>
        </div>
        <Text size="xs" c="dimmed" hidden={presenting}>
          {GRID_COLUMNS}-column grid · {Object.keys(dashboard.configuration.entityAliases).length} entity
          aliases · {stateIds.length} state(s)
        </Text>
      </Stack>
      <WidgetEditor
        dashboard={dashboard}
        widget={editWidget ? (dashboard.configuration.widgets[editWidget] ?? null) : null}
        onClose={() => setEditWidget(null)}
        onSave={(w, newAliases) => {
          update((d) => {
            d.configuration.widgets[w.id!] = w;
            for (const a of newAliases) d.configuration.entityAliases[a.id] = a;
            return d;
          });
          setEditWidget(null);
        }}
      />
    </DashboardContext.Provider>
  );
}
