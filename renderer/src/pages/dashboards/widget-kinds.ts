/**
 * The widget types Sandboard renders, by ThingsBoard's fully qualified names (typeFullFqn, or the
 * bundle and alias of older exports), and the renderer each gets (widget-registry.tsx). A type not
 * listed gets a placeholder naming it.
 */

export const WIDGET_RENDERERS = [
  'chart',
  'bars',
  'value-card',
  'html-value-card',
  'entities-table',
  'timeseries-table',
  'markdown-card',
  'html-card',
  'analogue-gauge',
  'digital-gauge',
  'alarms-table',
  'map',
  'image-map',
  'switch',
  'button',
  'slider',
  'knob',
  'attributes-form',
] as const;
export type WidgetRendererId = (typeof WIDGET_RENDERERS)[number];

export interface WidgetKind {
  /** what the editor calls it */
  name: string;
  /** the FQN the editor gives a new widget of this kind */
  fqn: string;
  /** ThingsBoard's widget type (timeseries, latest, rpc, alarm, static) */
  type: string;
  renderer: WidgetRendererId;
  /** more FQNs (other versions' names of the same widget) */
  aliases?: string[];
  /** a prefix every widget of a bundle matches */
  prefixes?: string[];
}

export const WIDGET_KINDS: WidgetKind[] = [
  {
    name: 'Time series chart',
    fqn: 'system.time_series_chart',
    type: 'timeseries',
    renderer: 'chart',
    aliases: [
      'system.charts.basic_timeseries',
      'system.charts.timeseries',
      'system.line_chart',
      'system.charts.state_chart',
      'system.area_chart',
      'system.point_chart',
    ],
  },
  {
    name: 'Bar chart',
    fqn: 'system.bar_chart_with_labels',
    type: 'timeseries',
    renderer: 'bars',
    aliases: [
      'system.charts.timeseries_bars_flot',
      'system.time_series_bar_chart',
      'system.bar_chart',
      'system.charts.bars',
    ],
  },
  {
    name: 'Value card',
    fqn: 'system.cards.value_card',
    type: 'latest',
    renderer: 'value-card',
    aliases: ['system.cards.simple_card', 'system.cards.aggregated_value_card', 'system.value_card'],
  },
  {
    name: 'HTML value card',
    fqn: 'system.cards.html_value_card',
    type: 'latest',
    renderer: 'html-value-card',
  },
  {
    name: 'Entities table',
    fqn: 'system.cards.entities_table',
    type: 'latest',
    renderer: 'entities-table',
    aliases: ['system.entities_table'],
  },
  {
    name: 'Timeseries table',
    fqn: 'system.cards.timeseries_table',
    type: 'timeseries',
    renderer: 'timeseries-table',
  },
  {
    name: 'Markdown/HTML card',
    fqn: 'system.cards.markdown_card',
    type: 'latest',
    renderer: 'markdown-card',
  },
  { name: 'HTML card', fqn: 'system.cards.html_card', type: 'static', renderer: 'html-card' },
  {
    name: 'Analogue gauge',
    fqn: 'system.analogue_gauges.radial_gauge_canvas_gauges',
    type: 'latest',
    renderer: 'analogue-gauge',
    aliases: ['system.radial_gauge', 'system.speed_gauge'],
    prefixes: ['system.analogue_gauges.'],
  },
  {
    name: 'Digital gauge',
    fqn: 'system.digital_gauges.digital_thermometer',
    type: 'latest',
    renderer: 'digital-gauge',
    aliases: ['system.simple_gauge', 'system.digital_gauge'],
    prefixes: ['system.digital_gauges.'],
  },
  {
    name: 'Alarms table',
    fqn: 'system.alarm_widgets.alarms_table',
    type: 'alarm',
    renderer: 'alarms-table',
    aliases: ['system.alarms_table'],
  },
  {
    name: 'Map (plane)',
    fqn: 'system.maps_v2.openstreetmap',
    type: 'latest',
    renderer: 'map',
    aliases: [
      'system.map',
      'system.maps_v2.google_maps',
      'system.maps_v2.here_map',
      'system.maps_v2.tencent_map',
      'system.maps_v2.route_map',
      'system.maps_v2.trip_animation',
    ],
    prefixes: ['system.maps.'],
  },
  {
    name: 'Image map',
    fqn: 'system.maps_v2.image_map',
    type: 'latest',
    renderer: 'image-map',
    aliases: ['system.image_map'],
  },
  {
    name: 'Switch (RPC)',
    fqn: 'system.control_widgets.switch_control',
    type: 'rpc',
    renderer: 'switch',
    aliases: [
      'system.single_switch',
      'system.control_widgets.round_switch',
      'system.control_widgets.slide_toggle_control',
      'system.power_button',
      'system.toggle_button',
    ],
  },
  {
    name: 'Button (RPC)',
    fqn: 'system.command_button',
    type: 'rpc',
    renderer: 'button',
    aliases: ['system.control_widgets.rpcbutton'],
  },
  { name: 'Slider (RPC)', fqn: 'system.slider', type: 'rpc', renderer: 'slider' },
  { name: 'Knob (RPC)', fqn: 'system.control_widgets.knob_control', type: 'rpc', renderer: 'knob' },
  {
    name: 'Update attributes form',
    fqn: 'system.input_widgets.update_multiple_attributes',
    type: 'latest',
    renderer: 'attributes-form',
    prefixes: ['system.input_widgets.update_'],
  },
];

const byFqn = new Map<string, WidgetKind>();
for (const k of WIDGET_KINDS) for (const f of [k.fqn, ...(k.aliases ?? [])]) byFqn.set(f, k);

/** The kind that renders this FQN, or undefined (the placeholder). */
export function widgetKind(fqn: string): WidgetKind | undefined {
  return byFqn.get(fqn) ?? WIDGET_KINDS.find((k) => k.prefixes?.some((p) => fqn.startsWith(p)));
}
