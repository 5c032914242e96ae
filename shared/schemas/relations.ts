/** Entity relations in ThingsBoard's shapes (EntityRelation, EntityRelationInfo, EntityRelationsQuery). */
import { Type, type Static } from 'typebox';
import { AnyEntityId, Nullable, StringEnum } from './common.ts';

export const RELATION_TYPE_GROUPS = [
  'COMMON',
  'DASHBOARD',
  'RULE_CHAIN',
  'RULE_NODE',
  'EDGE',
  'EDGE_AUTO_ASSIGN_RULE_CHAIN',
] as const;
export type RelationTypeGroup = (typeof RELATION_TYPE_GROUPS)[number];
export const RelationTypeGroup = StringEnum(RELATION_TYPE_GROUPS);

export const SEARCH_DIRECTIONS = ['FROM', 'TO'] as const;
export type SearchDirection = (typeof SEARCH_DIRECTIONS)[number];

export const RELATION_LIMITS = {
  /** levels a relation query or a propagation follows at most (maxLevel 0 or less means this) */
  maxLevel: 50,
  /** relations one query returns at most */
  queryRelations: 10_000,
  filters: 100,
  additionalInfoChars: 65_536,
} as const;

export const EntityRelation = Type.Object({
  from: AnyEntityId,
  to: AnyEntityId,
  type: Type.String(),
  typeGroup: RelationTypeGroup,
  additionalInfo: Type.Unknown(),
});
export type EntityRelation = Static<typeof EntityRelation>;

export const EntityRelationInfo = Type.Object({
  ...EntityRelation.properties,
  fromName: Nullable(Type.String()),
  toName: Nullable(Type.String()),
});
export type EntityRelationInfo = Static<typeof EntityRelationInfo>;

const EntityRef = Type.Object({
  entityType: Type.String({ minLength: 1, maxLength: 32 }),
  id: Type.String({ format: 'uuid' }),
});

export const SaveRelationRequest = Type.Object({
  from: EntityRef,
  to: EntityRef,
  type: Type.String({ minLength: 1, maxLength: 255 }),
  typeGroup: Type.Optional(Nullable(RelationTypeGroup)),
  additionalInfo: Type.Optional(Type.Unknown()),
});
export type SaveRelationRequest = Static<typeof SaveRelationRequest>;

export const RelationEntityTypeFilter = Type.Object({
  relationType: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  entityTypes: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 32 }))),
  negate: Type.Optional(Type.Boolean()),
});
export type RelationEntityTypeFilter = Static<typeof RelationEntityTypeFilter>;

export const EntityRelationsQuery = Type.Object({
  parameters: Type.Object({
    rootId: Type.String({ format: 'uuid' }),
    rootType: Type.String({ minLength: 1, maxLength: 32 }),
    direction: StringEnum(SEARCH_DIRECTIONS),
    relationTypeGroup: Type.Optional(Nullable(RelationTypeGroup)),
    maxLevel: Type.Optional(
      Type.Integer({ description: `0 or less: up to ${RELATION_LIMITS.maxLevel} levels` }),
    ),
    fetchLastLevelOnly: Type.Optional(Type.Boolean()),
  }),
  filters: Type.Array(RelationEntityTypeFilter, { maxItems: RELATION_LIMITS.filters }),
});
export type EntityRelationsQuery = Static<typeof EntityRelationsQuery>;

const RelationParam = Type.String({ minLength: 1, maxLength: 255 });
const IdParam = Type.String({ format: 'uuid' });
const TypeParam = Type.String({ minLength: 1, maxLength: 32 });

/** GET/DELETE /api/relation: one relation by its key. */
export const RelationKeyQuery = Type.Object({
  fromId: IdParam,
  fromType: TypeParam,
  relationType: RelationParam,
  relationTypeGroup: Type.Optional(Type.String({ maxLength: 64 })),
  toId: IdParam,
  toType: TypeParam,
});
export type RelationKeyQuery = Static<typeof RelationKeyQuery>;

/** GET /api/relations and /api/relations/info: by one end, optionally by type. */
export const RelationListQuery = Type.Object({
  fromId: Type.Optional(IdParam),
  fromType: Type.Optional(TypeParam),
  toId: Type.Optional(IdParam),
  toType: Type.Optional(TypeParam),
  relationType: Type.Optional(RelationParam),
  relationTypeGroup: Type.Optional(Type.String({ maxLength: 64 })),
});
export type RelationListQuery = Static<typeof RelationListQuery>;
