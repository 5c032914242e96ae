/** The component that draws each kind of widget (widget-kinds.ts says which FQNs are which kind). */
import type { ComponentType } from 'react';
import type { Widget } from './dashboard-model.ts';
import type { WidgetRendererId } from './widget-kinds.ts';
import { AttributesForm } from './widgets/attributes-form.tsx';
import { HtmlValueCard, MarkdownCard, ValueCard } from './widgets/cards.tsx';
import { ChartWidget } from './widgets/chart-widget.tsx';
import { GaugeWidget } from './widgets/gauges.tsx';
import { MapWidget } from './widgets/map-widget.tsx';
import { ButtonControl, KnobControl, SliderControl, SwitchControl } from './widgets/rpc-controls.tsx';
import { AlarmsTable, EntitiesTable, TimeseriesTable } from './widgets/tables.tsx';

type WidgetComponent = ComponentType<{ widget: Widget }>;

export const WIDGET_COMPONENTS: Record<WidgetRendererId, WidgetComponent> = {
  chart: ChartWidget,
  bars: ({ widget }) => <ChartWidget widget={widget} bars />,
  'value-card': ValueCard,
  'html-value-card': HtmlValueCard,
  'entities-table': EntitiesTable,
  'timeseries-table': TimeseriesTable,
  'markdown-card': MarkdownCard,
  'html-card': ({ widget }) => <MarkdownCard widget={widget} html />,
  'analogue-gauge': ({ widget }) => <GaugeWidget widget={widget} />,
  'digital-gauge': ({ widget }) => <GaugeWidget widget={widget} digital />,
  'alarms-table': AlarmsTable,
  map: MapWidget,
  'image-map': ({ widget }) => <MapWidget widget={widget} image />,
  switch: SwitchControl,
  button: ButtonControl,
  slider: SliderControl,
  knob: KnobControl,
  'attributes-form': AttributesForm,
};
