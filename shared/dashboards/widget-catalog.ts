/**
 * The widgets Sandboard's dashboard page renders, under ThingsBoard's system FQNs and bundles: what
 * /api/widgetsBundles and /api/widgetTypes list, and what the page looks a dashboard widget's
 * `typeFullFqn` up in. A widget whose FQN is not here is shown as a placeholder naming it.
 */

/** ThingsBoard's widget types: how a widget gets its data. */
export type WidgetKind = 'timeseries' | 'latest' | 'rpc' | 'alarm' | 'static';

/** What the page draws a widget as; several FQNs (a current one and its deprecated ancestor) share one. */
export type WidgetRenderer =
  | 'time-series-chart'
  | 'bar-chart'
  | 'value-card'
  | 'html-value-card'
  | 'entities-table'
  | 'timeseries-table'
  | 'markdown-card'
  | 'html-card'
  | 'analogue-radial-gauge'
  | 'analogue-linear-gauge'
  | 'digital-gauge'
  | 'alarms-table'
  | 'image-map'
  | 'switch'
  | 'button'
  | 'slider'
  | 'knob'
  | 'update-attributes-form';

export interface CatalogBundle {
  /** ThingsBoard's bundle alias */
  alias: string;
  title: string;
  /** ThingsBoard's order of the bundle in the widget library */
  order: number;
  description: string;
}

export interface CatalogWidget {
  /** ThingsBoard's FQN without the scope: `time_series_chart`, `cards.value_card` */
  fqn: string;
  name: string;
  kind: WidgetKind;
  renderer: WidgetRenderer;
  /** default size in grid cells (ThingsBoard's descriptor sizeX / sizeY; the grid has 24 columns) */
  sizeX: number;
  sizeY: number;
  /** aliases of the bundles that list it */
  bundles: string[];
  description: string;
  tags: string[];
  /** superseded in ThingsBoard by a newer widget; still rendered, for dashboards exported with it */
  deprecated?: boolean;
}

/** `system.` before an FQN: how a dashboard's widgets name a system widget type (`typeFullFqn`). */
export const SYSTEM_SCOPE = 'system';

export const WIDGET_BUNDLES: readonly CatalogBundle[] = [
  { alias: 'charts', title: 'Charts', order: 1000, description: 'Time series as lines and bars.' },
  { alias: 'cards', title: 'Cards', order: 2000, description: 'Latest values, HTML and markdown cards.' },
  { alias: 'alarm_widgets', title: 'Alarm widgets', order: 3000, description: 'Alarms of entities.' },
  {
    alias: 'tables',
    title: 'Tables',
    order: 4000,
    description: 'Entities, time series and alarms in tables.',
  },
  { alias: 'maps_v2', title: 'Maps', order: 6000, description: 'Entities placed on an image: no map tiles.' },
  {
    alias: 'analogue_gauges',
    title: 'Analogue gauges',
    order: 7000,
    description: 'Values on radial and linear dials.',
  },
  { alias: 'buttons', title: 'Buttons', order: 7500, description: 'Buttons sending commands to devices.' },
  {
    alias: 'control_widgets',
    title: 'Control widgets',
    order: 8000,
    description: 'Switches, buttons, sliders and knobs sending RPC commands to devices.',
  },
  {
    alias: 'digital_gauges',
    title: 'Digital gauges',
    order: 12500,
    description: 'Values on digital gauges.',
  },
  {
    alias: 'input_widgets',
    title: 'Input widgets',
    order: 14000,
    description: 'Forms that write attributes of an entity.',
  },
  { alias: 'html_widgets', title: 'HTML widgets', order: 21000, description: 'HTML and markdown templates.' },
];

const CHART_TAGS = ['chart', 'time series', 'line', 'bar'];
const RPC_TAGS = ['command', 'rpc', 'device control'];

export const WIDGET_CATALOG: readonly CatalogWidget[] = [
  {
    fqn: 'time_series_chart',
    name: 'Time series chart',
    kind: 'timeseries',
    renderer: 'time-series-chart',
    sizeX: 8,
    sizeY: 5,
    bundles: ['charts'],
    description: 'Time series of one or more keys over the timewindow, as lines.',
    tags: CHART_TAGS,
  },
  {
    fqn: 'bar_chart',
    name: 'Bar chart',
    kind: 'timeseries',
    renderer: 'bar-chart',
    sizeX: 8,
    sizeY: 5,
    bundles: ['charts'],
    description: 'Time series of one or more keys over the timewindow, as bars.',
    tags: CHART_TAGS,
  },
  {
    fqn: 'charts.basic_timeseries',
    name: 'Timeseries Line Chart',
    kind: 'timeseries',
    renderer: 'time-series-chart',
    sizeX: 8,
    sizeY: 5,
    bundles: ['charts'],
    description: 'The line chart of older ThingsBoard dashboards.',
    tags: CHART_TAGS,
    deprecated: true,
  },
  {
    fqn: 'charts.timeseries_bars_flot',
    name: 'Timeseries Bar Chart',
    kind: 'timeseries',
    renderer: 'bar-chart',
    sizeX: 8,
    sizeY: 5,
    bundles: ['charts'],
    description: 'The bar chart of older ThingsBoard dashboards.',
    tags: CHART_TAGS,
    deprecated: true,
  },
  {
    fqn: 'cards.value_card',
    name: 'Value card',
    kind: 'latest',
    renderer: 'value-card',
    sizeX: 3,
    sizeY: 3,
    bundles: ['cards'],
    description: 'One latest value (attribute or time series) with its label and units.',
    tags: ['value', 'card'],
  },
  {
    fqn: 'cards.html_value_card',
    name: 'HTML Value Card',
    kind: 'latest',
    renderer: 'html-value-card',
    sizeX: 7.5,
    sizeY: 3,
    bundles: ['cards', 'html_widgets'],
    description: 'An HTML template with ${key} values of its datasource filled in.',
    tags: ['html', 'card'],
  },
  {
    fqn: 'cards.entities_table',
    name: 'Entities table',
    kind: 'latest',
    renderer: 'entities-table',
    sizeX: 7.5,
    sizeY: 6.5,
    bundles: ['tables'],
    description: 'The entities of an alias, one row each, with their latest values as columns.',
    tags: ['table', 'entities'],
  },
  {
    fqn: 'cards.timeseries_table',
    name: 'Time series table',
    kind: 'timeseries',
    renderer: 'timeseries-table',
    sizeX: 8,
    sizeY: 6.5,
    bundles: ['tables'],
    description: "An entity's time series over the timewindow, one row per timestamp.",
    tags: ['table', 'time series'],
  },
  {
    fqn: 'cards.markdown_card',
    name: 'Markdown/HTML Card',
    kind: 'latest',
    renderer: 'markdown-card',
    sizeX: 5,
    sizeY: 3.5,
    bundles: ['cards', 'html_widgets'],
    description: 'Markdown or HTML from a pattern with ${key} values filled in.',
    tags: ['markdown', 'html', 'card'],
  },
  {
    fqn: 'cards.html_card',
    name: 'HTML Card',
    kind: 'static',
    renderer: 'html-card',
    sizeX: 7.5,
    sizeY: 3,
    bundles: ['cards', 'html_widgets'],
    description: 'Static HTML.',
    tags: ['html', 'card'],
  },
  {
    fqn: 'analogue_gauges.radial_gauge_canvas_gauges',
    name: 'Radial gauge',
    kind: 'latest',
    renderer: 'analogue-radial-gauge',
    sizeX: 6,
    sizeY: 5,
    bundles: ['analogue_gauges'],
    description: 'A latest value on a radial dial with a range and colored zones.',
    tags: ['gauge', 'dial'],
  },
  {
    fqn: 'analogue_gauges.temperature_gauge_canvas_gauges',
    name: 'Thermometer scale',
    kind: 'latest',
    renderer: 'analogue-linear-gauge',
    sizeX: 7,
    sizeY: 3,
    bundles: ['analogue_gauges'],
    description: 'A latest value on a linear thermometer scale.',
    tags: ['gauge', 'temperature'],
  },
  {
    fqn: 'digital_gauges.gauge_justgage',
    name: 'Gauge',
    kind: 'latest',
    renderer: 'digital-gauge',
    sizeX: 4,
    sizeY: 3,
    bundles: ['digital_gauges'],
    description: 'A latest value on a digital arc gauge.',
    tags: ['gauge'],
  },
  {
    fqn: 'digital_gauges.digital_thermometer',
    name: 'Digital thermometer',
    kind: 'latest',
    renderer: 'digital-gauge',
    sizeX: 3,
    sizeY: 3,
    bundles: ['digital_gauges'],
    description: 'A temperature on a digital gauge.',
    tags: ['gauge', 'temperature'],
  },
  {
    fqn: 'alarm_widgets.alarms_table',
    name: 'Alarms table',
    kind: 'alarm',
    renderer: 'alarms-table',
    sizeX: 10.5,
    sizeY: 6.5,
    bundles: ['alarm_widgets', 'tables'],
    description: 'The alarms of the entities of an alias within the timewindow.',
    tags: ['alarm', 'table'],
  },
  {
    fqn: 'image_map',
    name: 'Image Map',
    kind: 'latest',
    renderer: 'image-map',
    sizeX: 8.5,
    sizeY: 6,
    bundles: ['maps_v2'],
    description: 'Entities as markers on an image (or a plain plane) at their x and y (0 to 1).',
    tags: ['map', 'image', 'indoor', 'floor plan'],
  },
  {
    fqn: 'maps_v2.image_map',
    name: 'Image Map',
    kind: 'latest',
    renderer: 'image-map',
    sizeX: 8.5,
    sizeY: 6.5,
    bundles: ['maps_v2'],
    description: 'The image map of older ThingsBoard dashboards.',
    tags: ['map', 'image', 'indoor'],
    deprecated: true,
  },
  {
    fqn: 'single_switch',
    name: 'Single Switch',
    kind: 'rpc',
    renderer: 'switch',
    sizeX: 3.5,
    sizeY: 1,
    bundles: ['control_widgets'],
    description: 'A switch whose changes are sent to the device as RPC commands.',
    tags: [...RPC_TAGS, 'switch'],
  },
  {
    fqn: 'control_widgets.switch_control',
    name: 'Switch Control',
    kind: 'rpc',
    renderer: 'switch',
    sizeX: 4,
    sizeY: 2.5,
    bundles: ['control_widgets'],
    description: 'A switch sending setValue (and reading getValue) RPC commands.',
    tags: [...RPC_TAGS, 'switch'],
  },
  {
    fqn: 'command_button',
    name: 'Command button',
    kind: 'rpc',
    renderer: 'button',
    sizeX: 3,
    sizeY: 1,
    bundles: ['control_widgets', 'buttons'],
    description: 'A button sending one RPC command to the device.',
    tags: [...RPC_TAGS, 'button'],
  },
  {
    fqn: 'control_widgets.rpcbutton',
    name: 'RPC Button',
    kind: 'rpc',
    renderer: 'button',
    sizeX: 4,
    sizeY: 2,
    bundles: ['control_widgets'],
    description: 'A button sending an RPC command with its method and params.',
    tags: [...RPC_TAGS, 'button'],
  },
  {
    fqn: 'slider',
    name: 'Slider',
    kind: 'rpc',
    renderer: 'slider',
    sizeX: 5,
    sizeY: 3,
    bundles: ['control_widgets'],
    description: 'A slider whose value is sent to the device as an RPC command.',
    tags: [...RPC_TAGS, 'slider'],
  },
  {
    fqn: 'control_widgets.knob_control',
    name: 'Knob Control',
    kind: 'rpc',
    renderer: 'knob',
    sizeX: 5,
    sizeY: 4.5,
    bundles: ['control_widgets'],
    description: 'A knob sending setValue RPC commands as it turns.',
    tags: [...RPC_TAGS, 'knob'],
  },
  {
    fqn: 'input_widgets.update_multiple_attributes',
    name: 'Update Multiple Attributes',
    kind: 'latest',
    renderer: 'update-attributes-form',
    sizeX: 7.5,
    sizeY: 3,
    bundles: ['input_widgets'],
    description: 'A form writing several attributes of an entity at once.',
    tags: ['form', 'attributes', 'input'],
  },
];

const BY_FQN = new Map(WIDGET_CATALOG.map((w) => [w.fqn, w]));

/**
 * The catalog's widget a dashboard widget's `typeFullFqn` names (`system.cards.value_card`), or
 * undefined for any other (a tenant's widget, one Sandboard does not render).
 */
export function catalogWidget(typeFullFqn: string): CatalogWidget | undefined {
  const prefix = `${SYSTEM_SCOPE}.`;
  return typeFullFqn.startsWith(prefix) ? BY_FQN.get(typeFullFqn.slice(prefix.length)) : undefined;
}

/** The widgets of a bundle, in catalog order. */
export function bundleWidgets(alias: string): CatalogWidget[] {
  return WIDGET_CATALOG.filter((w) => w.bundles.includes(alias));
}

/** A dashboard widget as exports of any ThingsBoard version name its type. */
export interface WidgetTypeRef {
  typeFullFqn?: string;
  /** ThingsBoard before 3.6: the type's bundle, alias and scope instead of typeFullFqn */
  isSystemType?: boolean;
  bundleAlias?: string;
  typeAlias?: string;
}

/**
 * The full FQN of a dashboard widget's type, as ThingsBoard's UI reads it: `typeFullFqn`, else (older
 * exports) `system.` or `tenant.`, the bundle alias and the type alias; undefined when it names none.
 */
export function widgetTypeFullFqn(widget: WidgetTypeRef): string | undefined {
  let fqn = widget.typeFullFqn;
  if (!fqn || !fqn.includes('.')) {
    if (widget.isSystemType === undefined || !widget.bundleAlias || !widget.typeAlias) return undefined;
    fqn = `${widget.isSystemType ? SYSTEM_SCOPE : 'tenant'}.${widget.bundleAlias}.${widget.typeAlias}`;
  }
  // ThingsBoard renamed it; its UI reads the old name as the new
  return fqn === 'system.charts.timeseries' ? 'system.charts.basic_timeseries' : fqn;
}
