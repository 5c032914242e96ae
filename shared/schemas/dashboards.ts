/**
 * Dashboards and widgets in ThingsBoard's shapes: Dashboard, DashboardInfo, HomeDashboard(Info),
 * WidgetsBundle, WidgetType, WidgetTypeDetails and WidgetTypeInfo. A dashboard's configuration (widgets,
 * states, entityAliases, filters, timewindow, settings) is kept and given back as it came.
 */
import { Type, type Static } from 'typebox';
import { EntityId, Nullable } from './common.ts';

const Json = Type.Record(Type.String(), Type.Unknown());
const RefInput = (entityType: string) =>
  Type.Object({ entityType: Type.Optional(Type.Literal(entityType)), id: Type.String({ format: 'uuid' }) });

/** The most a dashboard (its title, image and configuration as JSON) may hold. */
export const DASHBOARD_MAX_BYTES = 4 * 1024 * 1024;
/** ThingsBoard's ui.dashboard.max_datapoints_limit default */
export const MAX_DATAPOINTS_LIMIT = 50_000;

export const ShortCustomerInfo = Type.Object({
  customerId: EntityId('CUSTOMER'),
  title: Type.String(),
  public: Type.Boolean(),
});
export type ShortCustomerInfo = Static<typeof ShortCustomerInfo>;

export const DashboardInfo = Type.Object({
  id: EntityId('DASHBOARD'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  title: Type.String(),
  name: Type.String({ description: 'the title (read-only)' }),
  image: Nullable(Type.String()),
  assignedCustomers: Nullable(Type.Array(ShortCustomerInfo)),
  mobileHide: Type.Boolean(),
  mobileOrder: Nullable(Type.Integer()),
  version: Type.Integer({ description: 'raised by every save; a save naming an older one gets 409' }),
});
export type DashboardInfo = Static<typeof DashboardInfo>;

export const Dashboard = Type.Object({
  ...DashboardInfo.properties,
  configuration: Nullable(Json),
  resources: Nullable(Type.Array(Type.Unknown())),
});
export type Dashboard = Static<typeof Dashboard>;

export const HomeDashboard = Type.Object({
  ...Dashboard.properties,
  hideDashboardToolbar: Type.Boolean(),
});
export type HomeDashboard = Static<typeof HomeDashboard>;

export const HomeDashboardInfo = Type.Object({
  dashboardId: Nullable(EntityId('DASHBOARD')),
  hideDashboardToolbar: Type.Boolean(),
});
export type HomeDashboardInfo = Static<typeof HomeDashboardInfo>;

export const SaveHomeDashboardInfo = Type.Object({
  dashboardId: Type.Optional(Nullable(RefInput('DASHBOARD'))),
  hideDashboardToolbar: Type.Optional(Type.Boolean()),
});
export type SaveHomeDashboardInfo = Static<typeof SaveHomeDashboardInfo>;

/**
 * What POST /api/dashboard takes: a ThingsBoard dashboard or its export (title, image, mobileHide,
 * mobileOrder, configuration, name, resources), other fields ignored as ThingsBoard ignores them.
 */
export const SaveDashboardRequest = Type.Object({
  id: Type.Optional(Nullable(RefInput('DASHBOARD'))),
  title: Type.String({ minLength: 1, maxLength: 255 }),
  image: Type.Optional(Nullable(Type.String())),
  mobileHide: Type.Optional(Type.Boolean()),
  // null first: the coercing validator would read a null as 0 for an integer listed before it
  mobileOrder: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
  configuration: Type.Optional(Nullable(Json)),
  version: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
  assignedCustomers: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 10_000 }))),
  resources: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 1000 }))),
});
export type SaveDashboardRequest = Static<typeof SaveDashboardRequest>;

export const WidgetsBundle = Type.Object({
  id: EntityId('WIDGETS_BUNDLE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  alias: Type.String(),
  title: Type.String(),
  name: Type.String(),
  image: Nullable(Type.String()),
  scada: Type.Boolean(),
  description: Nullable(Type.String()),
  order: Nullable(Type.Integer()),
  externalId: Nullable(EntityId('WIDGETS_BUNDLE')),
  version: Type.Integer(),
});
export type WidgetsBundle = Static<typeof WidgetsBundle>;

const BaseWidgetType = {
  id: EntityId('WIDGET_TYPE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  fqn: Type.String(),
  name: Type.String(),
  deprecated: Type.Boolean(),
  scada: Type.Boolean(),
  version: Type.Integer(),
};

export const WidgetType = Type.Object({ ...BaseWidgetType, descriptor: Json });
export type WidgetType = Static<typeof WidgetType>;

export const WidgetTypeDetails = Type.Object({
  ...BaseWidgetType,
  descriptor: Json,
  image: Nullable(Type.String()),
  description: Nullable(Type.String()),
  tags: Nullable(Type.Array(Type.String())),
  externalId: Nullable(EntityId('WIDGET_TYPE')),
  resources: Nullable(Type.Array(Type.Unknown())),
});
export type WidgetTypeDetails = Static<typeof WidgetTypeDetails>;

export const WidgetBundleInfo = Type.Object({ id: EntityId('WIDGETS_BUNDLE'), name: Type.String() });

export const WidgetTypeInfo = Type.Object({
  ...BaseWidgetType,
  image: Nullable(Type.String()),
  description: Nullable(Type.String()),
  tags: Nullable(Type.Array(Type.String())),
  widgetType: Type.String({ description: 'timeseries, latest, rpc, alarm or static' }),
  bundles: Type.Array(WidgetBundleInfo),
});
export type WidgetTypeInfo = Static<typeof WidgetTypeInfo>;
