import { createContext, useContext, useEffect, useMemo, useSyncExternalStore } from 'react';
import { useApi } from '../../api/api-context.tsx';
import type { StateParams } from './aliases.ts';
import type { Dashboard, Datasource, Timewindow, Widget } from './dashboard-model.ts';
import type { TbSocket } from './tb-socket.ts';
import { timeRange } from './timewindow.ts';
import { WidgetData, type DataMode, type DatasourceData } from './widget-data.ts';

/** What every widget of an open dashboard shares: the socket, the aliases, the state and its params. */
export interface DashboardContextValue {
  socket: TbSocket;
  dashboard: Dashboard;
  stateId: string;
  params: StateParams;
  timewindow: Timewindow | undefined;
  /** opens a state (a widget action), pushing it on the breadcrumbs */
  openState: (stateId: string, params?: StateParams) => void;
  /** the user may send RPCs and write attributes (not while editing) */
  interactive: boolean;
}

export const DashboardContext = createContext<DashboardContextValue | null>(null);

export function useDashboard(): DashboardContextValue {
  const value = useContext(DashboardContext);
  if (!value) throw new Error('useDashboard needs <DashboardContext>');
  return value;
}

/** The widget's timewindow: its own, unless it uses the dashboard's (ThingsBoard's default). */
export function widgetTimewindow(
  widget: Widget,
  dashboardTw: Timewindow | undefined,
): Timewindow | undefined {
  return widget.config.useDashboardTimewindow === false && widget.config.timewindow
    ? widget.config.timewindow
    : dashboardTw;
}

/** The live data of a widget's datasources, subscribed while the widget is shown. */
export function useWidgetData(
  widget: Widget,
  mode: DataMode,
  datasources: Datasource[] = widget.config.datasources ?? [],
): { data: DatasourceData[]; store: WidgetData } {
  const ctx = useDashboard();
  const client = useApi();
  const tw = widgetTimewindow(widget, ctx.timewindow);
  const key = JSON.stringify([datasources, mode, tw, ctx.params]);
  const store = useMemo(
    () =>
      new WidgetData(
        ctx.socket,
        client,
        datasources,
        ctx.dashboard.configuration.entityAliases,
        ctx.params,
        mode,
        timeRange(tw),
      ),
    [key, ctx.socket, client, ctx.dashboard.configuration.entityAliases],
  );
  useEffect(() => {
    store.start();
    return () => store.stop();
  }, [store]);
  const data = useSyncExternalStore(store.subscribe, () => store.snapshot);
  return { data, store };
}
