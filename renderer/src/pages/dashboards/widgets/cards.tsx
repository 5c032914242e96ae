import { useId } from 'react';
import { Stack, Text, Typography } from '@mantine/core';
import { formatDateTime } from '../../../components/format.ts';
import { useWidgetData } from '../dashboard-context.tsx';
import type { Widget } from '../dashboard-model.ts';
import { markdownToHtml } from '../markdown.ts';
import { sanitizeCss, sanitizeHtml } from '../sanitize-html.ts';
import type { DatasourceData, WidgetData } from '../widget-data.ts';
import { firstValue, formatKeyValue, keyLabel, setting } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';

/** The value card: the first key's latest value, big, with its label and time. */
export function ValueCard({ widget }: { widget: Widget }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const v = firstValue(data, store);
  if (v.error) return <WidgetMessage text={v.error} tone="error" />;
  const label = setting(widget, 'label', '') || (v.key ? keyLabel(v.key) : '');
  return (
    // sized by its own box (container units), so a small card and a big one both fit their value
    <div style={{ containerType: 'size', height: '100%', width: '100%' }} data-testid="value-card">
      <Stack gap={0} justify="center" align="center" h="100%">
        {label !== widget.config.title && (
          <Text
            c="dimmed"
            ta="center"
            lh={1.2}
            style={{ fontSize: 'clamp(0.7rem, 12cqh, 1rem)' }}
            lineClamp={1}
          >
            {label}
          </Text>
        )}
        <Text
          fw={700}
          ta="center"
          lh={1.1}
          style={{ fontSize: 'clamp(0.9rem, min(32cqh, 15cqw), 4rem)', whiteSpace: 'nowrap' }}
          data-testid="value-card-value"
        >
          {v.loaded ? formatKeyValue(v.value, v.key, widget) : '…'}
        </Text>
        {v.point && v.point.ts > 0 && v.key?.type !== 'entityField' && (
          <Text c="dimmed" style={{ fontSize: 'clamp(0.6rem, 9cqh, 0.8rem)' }} lineClamp={1}>
            {formatDateTime(v.point.ts)}
          </Text>
        )}
      </Stack>
    </div>
  );
}

/**
 * Replaces ${label} and ${label:2} (ThingsBoard's pattern placeholders, by key label or name) with the
 * first entity's values, and ${entityName} / ${entityLabel}; values are HTML-escaped.
 */
export function fillPattern(
  pattern: string,
  data: DatasourceData[],
  store: WidgetData,
  widget: Widget,
): string {
  const values = new Map<string, string>();
  const row0 = data.find((d) => d.rows.length)?.rows[0];
  if (row0) {
    values.set('entityName', row0.name);
    values.set('entityLabel', row0.label || row0.name);
  }
  const raw = new Map<string, unknown>();
  for (const ds of data) {
    const row = ds.rows[0];
    if (!row) continue;
    for (const key of ds.keys) {
      const v = store.shown(row.entityId.id, key, row.latest[key.name]);
      for (const name of [key.name, keyLabel(key)]) {
        if (raw.has(name)) continue;
        raw.set(name, v);
        values.set(
          name,
          formatKeyValue(v, { ...key, units: '' }, { ...widget, config: { ...widget.config, units: '' } }),
        );
      }
    }
  }
  const esc = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return pattern.replace(/\$\{([^}:]+)(?::(\d+))?\}/g, (_m, name: string, decimals?: string) => {
    const v = raw.get(name);
    if (decimals !== undefined && typeof v === 'number') return esc(v.toFixed(Number(decimals)));
    return esc(values.get(name) ?? '');
  });
}

function HtmlBlock({ html, css, testId }: { html: string; css?: string; testId: string }) {
  const scope = `card-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  return (
    <Typography h="100%" style={{ overflow: 'auto' }} p={4} className={scope} tabIndex={0}>
      {css ? <style>{sanitizeCss(css, `.${scope}`)}</style> : null}
      <div data-testid={testId} dangerouslySetInnerHTML={{ __html: sanitizeHtml(html) }} />
    </Typography>
  );
}

/** The HTML value card: its HTML with the values filled in. */
export function HtmlValueCard({ widget }: { widget: Widget }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const html = setting(widget, 'cardHtml', '<div>${' + (data[0]?.keys[0]?.label ?? 'value') + '}</div>');
  return (
    <HtmlBlock
      html={fillPattern(html, data, store, widget)}
      css={setting(widget, 'cardCss', '')}
      testId="html-value-card"
    />
  );
}

/** The markdown / HTML card (its pattern filled with the first entity's values) and the plain HTML card. */
export function MarkdownCard({ widget, html }: { widget: Widget; html?: boolean }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const text = html
    ? setting(widget, 'cardHtml', '')
    : setting(widget, 'markdownTextPattern', setting(widget, 'markdownText', ''));
  const filled = fillPattern(text, data, store, widget);
  return (
    <HtmlBlock
      html={html ? filled : markdownToHtml(filled)}
      css={setting(widget, html ? 'cardCss' : 'markdownCss', '')}
      testId="markdown-card"
    />
  );
}
