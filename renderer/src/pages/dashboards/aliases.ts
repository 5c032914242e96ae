/**
 * Entity aliases (alias.models.ts) as the entity filters of ThingsBoard's entity data query: the server
 * (POST /api/entitiesQuery/find, or ENTITY_DATA over /api/ws) resolves them, the page never lists
 * entities itself. The state entity and relation queries rooted at it read the current state's params.
 */
import type { AliasFilter, EntityAlias, TbEntityId } from './dashboard-model.ts';

/** The params of a dashboard state: the entity it is about (ThingsBoard's StateParams). */
export interface StateParams {
  entityId?: TbEntityId;
  entityName?: string;
  entityLabel?: string;
  /** named params (a widget action's stateEntityParamName) */
  [name: string]: unknown;
}

export interface EntityFilter {
  type: string;
  [field: string]: unknown;
}

export interface ResolvedAlias {
  filter: EntityFilter;
  /** at most one entity (the alias does not resolve to multiple) */
  single: boolean;
}

function stateEntity(params: StateParams, paramName: string | null | undefined): TbEntityId | undefined {
  const named = paramName ? (params[paramName] as StateParams | undefined) : undefined;
  return (named && typeof named === 'object' ? named.entityId : undefined) ?? params.entityId;
}

/** The entity filter of an alias in a state, or an Error saying why it resolves to nothing. */
export function resolveAlias(alias: EntityAlias, params: StateParams): ResolvedAlias | Error {
  const f: AliasFilter = alias.filter;
  const single = f.resolveMultiple !== true;
  switch (f.type) {
    case 'singleEntity':
      return f.singleEntity
        ? { filter: { type: 'singleEntity', singleEntity: f.singleEntity }, single: true }
        : err(alias);
    case 'entityList':
      return {
        filter: { type: 'entityList', entityType: f.entityType, entityList: f.entityList ?? [] },
        single,
      };
    case 'entityName':
      return {
        filter: { type: 'entityName', entityType: f.entityType, entityNameFilter: f.entityNameFilter ?? '' },
        single,
      };
    case 'entityType':
      return { filter: { type: 'entityType', entityType: f.entityType }, single };
    case 'deviceType':
      return {
        filter: {
          type: 'deviceType',
          deviceTypes: f.deviceTypes ?? (f.deviceType ? [f.deviceType] : []),
          deviceNameFilter: f.deviceNameFilter ?? '',
        },
        single,
      };
    case 'assetType':
      return {
        filter: {
          type: 'assetType',
          assetTypes: f.assetTypes ?? (f.assetType ? [f.assetType] : []),
          assetNameFilter: f.assetNameFilter ?? '',
        },
        single,
      };
    case 'stateEntity': {
      const id = stateEntity(params, f.stateEntityParamName) ?? f.defaultStateEntity ?? undefined;
      return id
        ? { filter: { type: 'singleEntity', singleEntity: id }, single: true }
        : err(alias, 'no entity in this state');
    }
    case 'relationsQuery': {
      const root = f.rootStateEntity
        ? (stateEntity(params, f.stateEntityParamName) ?? f.defaultStateEntity ?? undefined)
        : f.rootEntity;
      if (!root) return err(alias, 'no root entity');
      return {
        filter: {
          type: 'relationsQuery',
          rootEntity: root,
          direction: f.direction ?? 'FROM',
          maxLevel: f.maxLevel ?? 1,
          fetchLastLevelOnly: f.fetchLastLevelOnly ?? false,
          filters: (f.filters ?? []).map((x) => ({
            relationType: x.relationType ?? '',
            entityTypes: x.entityTypes ?? [],
          })),
        },
        single,
      };
    }
    default:
      return new Error(`Alias "${alias.alias}": the filter type ${f.type} is not supported`);
  }
}

function err(alias: EntityAlias, why = 'no entity'): Error {
  return new Error(`Alias "${alias.alias}": ${why}`);
}
