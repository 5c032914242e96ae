import { createHash } from 'node:crypto';
import {
  SYSTEM_SCOPE,
  WIDGET_BUNDLES,
  WIDGET_CATALOG,
  bundleWidgets,
  type CatalogBundle,
  type CatalogWidget,
} from '../../shared/dashboards/widget-catalog.ts';
import { NULL_UUID, type PageData, type PageQuery } from '../../shared/schemas/common.ts';
import type {
  WidgetType,
  WidgetTypeDetails,
  WidgetTypeInfo,
  WidgetsBundle,
} from '../../shared/schemas/dashboards.ts';
import { ref } from './context.ts';
import { badRequestParams, forbidden, notFound } from './errors.ts';

/** When the system widgets "were created": a fixed time, so that the library reads the same every start. */
const SYSTEM_CREATED_TIME = 1_700_000_000_000;

/** A stable UUID for a system bundle or widget type, from its alias or FQN. */
function stableId(kind: string, key: string): string {
  const h = createHash('sha1').update(`sandboard:${kind}:${key}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const WIDGETS_BUNDLE_SORT = ['createdTime', 'title'] as const;
export const WIDGET_TYPE_SORT = ['createdTime', 'name', 'deprecated'] as const;
export const DEPRECATED_FILTERS = ['ALL', 'ACTUAL', 'DEPRECATED'] as const;

export interface WidgetTypeFilter {
  tenantOnly?: boolean;
  fullSearch?: boolean;
  deprecatedFilter?: (typeof DEPRECATED_FILTERS)[number];
  /** ThingsBoard's widget types by data: timeseries, latest, rpc, alarm, static */
  widgetTypeList?: string[];
  bundleId?: string;
}

/** A descriptor as ThingsBoard's UI reads it; the code is Sandboard's renderer, named in sandboardRenderer. */
function descriptorOf(w: CatalogWidget): Record<string, unknown> {
  const defaultConfig: Record<string, unknown> = {
    ...(w.kind === 'static' || w.kind === 'rpc' ? {} : { datasources: [] }),
    ...(w.kind === 'rpc' ? { targetDevice: { type: 'device', deviceId: null } } : {}),
    ...(w.kind === 'alarm' ? { alarmSource: null } : {}),
    timewindow: { realtime: { timewindowMs: 60_000 } },
    showTitle: true,
    backgroundColor: '#ffffff',
    color: 'rgba(0, 0, 0, 0.87)',
    padding: '8px',
    settings: {},
    title: w.name,
  };
  return {
    type: w.kind,
    sizeX: w.sizeX,
    sizeY: w.sizeY,
    resources: [],
    templateHtml: '',
    templateCss: '',
    controllerScript: '',
    settingsSchema: '',
    dataKeySettingsSchema: '',
    defaultConfig: JSON.stringify(defaultConfig),
    sandboardRenderer: w.renderer,
  };
}

const matches = (text: string | undefined, ...fields: (string | undefined)[]) =>
  !text || fields.some((f) => f?.toLowerCase().includes(text.toLowerCase()));

function pageOf<T>(items: T[], q: PageQuery): PageData<T> {
  const data = items.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize);
  return {
    data,
    totalPages: Math.ceil(items.length / q.pageSize),
    totalElements: items.length,
    hasNext: (q.page + 1) * q.pageSize < items.length,
  };
}

function sortBy<T>(items: T[], key: (t: T) => string | number, order: 'ASC' | 'DESC' | undefined): T[] {
  const sign = order === 'DESC' ? -1 : 1;
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * sign;
  });
}

/**
 * ThingsBoard's widget library as a tenant sees it: the system bundles and widget types Sandboard
 * renders (shared/dashboards/widget-catalog.ts), read-only. A tenant's write to a system bundle or type
 * gets ThingsBoard's 403; Sandboard keeps no widget library of the tenant's own.
 */
export class WidgetLibrary {
  private readonly bundleIds = new Map(WIDGET_BUNDLES.map((b) => [stableId('bundle', b.alias), b]));
  private readonly typeIds = new Map(WIDGET_CATALOG.map((w) => [stableId('widget', w.fqn), w]));

  bundleId(alias: string): string {
    return stableId('bundle', alias);
  }

  typeId(fqn: string): string {
    return stableId('widget', fqn);
  }

  private toBundle(b: CatalogBundle): WidgetsBundle {
    return {
      id: ref('WIDGETS_BUNDLE', this.bundleId(b.alias)),
      createdTime: SYSTEM_CREATED_TIME,
      tenantId: ref('TENANT', NULL_UUID),
      alias: b.alias,
      title: b.title,
      name: b.title,
      image: null,
      scada: false,
      description: b.description,
      order: b.order,
      externalId: null,
      version: 1,
    };
  }

  private base(w: CatalogWidget) {
    return {
      id: ref('WIDGET_TYPE', this.typeId(w.fqn)),
      createdTime: SYSTEM_CREATED_TIME,
      tenantId: ref('TENANT', NULL_UUID),
      fqn: w.fqn,
      name: w.name,
      deprecated: w.deprecated === true,
      scada: false,
      version: 1,
    };
  }

  private toType(w: CatalogWidget): WidgetType {
    return { ...this.base(w), descriptor: descriptorOf(w) };
  }

  private toDetails(w: CatalogWidget): WidgetTypeDetails {
    return {
      ...this.toType(w),
      image: null,
      description: w.description,
      tags: w.tags,
      externalId: null,
      resources: null,
    };
  }

  private toInfo(w: CatalogWidget): WidgetTypeInfo {
    return {
      ...this.base(w),
      image: null,
      description: w.description,
      tags: w.tags,
      widgetType: w.kind,
      bundles: w.bundles.map((alias) => ({
        id: ref('WIDGETS_BUNDLE', this.bundleId(alias)),
        name: WIDGET_BUNDLES.find((b) => b.alias === alias)!.title,
      })),
    };
  }

  /** Every bundle, in the library's order. */
  bundles(): WidgetsBundle[] {
    return sortBy([...WIDGET_BUNDLES], (b) => b.order, 'ASC').map((b) => this.toBundle(b));
  }

  bundlePage(q: PageQuery, tenantOnly: boolean, fullSearch: boolean): PageData<WidgetsBundle> {
    if (tenantOnly) return pageOf([], q);
    const found = WIDGET_BUNDLES.filter((b) =>
      matches(q.textSearch, b.title, fullSearch ? b.description : undefined),
    );
    const sorted = q.sortProperty
      ? sortBy(found, (b) => (q.sortProperty === 'title' ? b.title : b.order), q.sortOrder)
      : sortBy(found, (b) => b.order, 'ASC');
    return pageOf(
      sorted.map((b) => this.toBundle(b)),
      q,
    );
  }

  private requireBundle(id: string): CatalogBundle {
    const b = this.bundleIds.get(id);
    if (!b) throw notFound(`Widgets bundle with id [${id}] is not found`);
    return b;
  }

  bundle(id: string): WidgetsBundle {
    return this.toBundle(this.requireBundle(id));
  }

  bundlesByIds(ids: string[]): WidgetsBundle[] {
    return this.bundles().filter((b) => ids.includes(b.id.id));
  }

  /** The bundle a tenant names by alias: only system ones exist (isSystem false finds none: 404). */
  bundleByAlias(isSystem: boolean, alias: string): CatalogBundle {
    const b = isSystem ? WIDGET_BUNDLES.find((x) => x.alias === alias) : undefined;
    if (!b) throw notFound();
    return b;
  }

  private widgetsOf(bundleId: string): CatalogWidget[] {
    return bundleWidgets(this.requireBundle(bundleId).alias);
  }

  bundleTypes(bundleId: string): WidgetType[] {
    return this.widgetsOf(bundleId).map((w) => this.toType(w));
  }

  bundleTypeDetails(bundleId: string): WidgetTypeDetails[] {
    return this.widgetsOf(bundleId).map((w) => this.toDetails(w));
  }

  bundleTypeInfos(bundleId: string): WidgetTypeInfo[] {
    return this.widgetsOf(bundleId).map((w) => this.toInfo(w));
  }

  bundleFqns(bundleId: string): string[] {
    return this.widgetsOf(bundleId).map((w) => `${SYSTEM_SCOPE}.${w.fqn}`);
  }

  private requireType(id: string): CatalogWidget {
    const w = this.typeIds.get(id);
    if (!w) throw notFound(`Widget type with id [${id}] is not found`);
    return w;
  }

  typeDetails(id: string): WidgetTypeDetails {
    return this.toDetails(this.requireType(id));
  }

  typeInfo(id: string): WidgetTypeInfo {
    return this.toInfo(this.requireType(id));
  }

  /** ThingsBoard's GET /api/widgetType?fqn=system.x: 400 for an FQN without its scope, 404 when unknown. */
  typeByFqn(fullFqn: string): WidgetType {
    const [scope] = fullFqn.split('.');
    if (!fullFqn.includes('.') || (scope !== SYSTEM_SCOPE && scope !== 'tenant'))
      throw badRequestParams('Invalid fqn!');
    const w = scope === SYSTEM_SCOPE ? WIDGET_CATALOG.find((x) => `system.${x.fqn}` === fullFqn) : undefined;
    if (!w) throw notFound();
    return this.toType(w);
  }

  /** The widget type `bundleAlias.alias` of a bundle (ThingsBoard's older addressing). */
  typeByAlias(isSystem: boolean, bundleAlias: string, alias: string): WidgetType {
    this.bundleByAlias(isSystem, bundleAlias);
    const w = WIDGET_CATALOG.find((x) => x.fqn === `${bundleAlias}.${alias}` || x.fqn === alias);
    if (!w || !w.bundles.includes(bundleAlias)) throw notFound();
    return this.toType(w);
  }

  typePage(q: PageQuery, filter: WidgetTypeFilter): PageData<WidgetTypeInfo> {
    if (filter.tenantOnly) return pageOf([], q);
    const pool = filter.bundleId ? this.widgetsOf(filter.bundleId) : [...WIDGET_CATALOG];
    const kinds = filter.widgetTypeList?.length ? new Set(filter.widgetTypeList) : null;
    const found = pool.filter(
      (w) =>
        matches(q.textSearch, w.name, ...(filter.fullSearch ? [w.description, ...w.tags] : [])) &&
        (!kinds || kinds.has(w.kind)) &&
        (filter.deprecatedFilter !== 'ACTUAL' || !w.deprecated) &&
        (filter.deprecatedFilter !== 'DEPRECATED' || w.deprecated === true),
    );
    const sorted =
      q.sortProperty === 'deprecated'
        ? sortBy(found, (w) => (w.deprecated ? 1 : 0), q.sortOrder)
        : q.sortProperty === 'name'
          ? sortBy(found, (w) => w.name, q.sortOrder)
          : found;
    return pageOf(
      sorted.map((w) => this.toInfo(w)),
      q,
    );
  }

  /**
   * What a tenant's write to the library gets: 404 for an id that names nothing, else ThingsBoard's
   * answer to a tenant changing system widgets (403); Sandboard keeps no tenant widgets to write.
   */
  refuseWrite(kind: 'bundle' | 'type', id?: string): never {
    if (id) {
      if (kind === 'bundle') this.requireBundle(id);
      else this.requireType(id);
    }
    throw forbidden();
  }
}
