import { PageNumber, PageSize } from '../limits.ts';
import { Type, type Static, type TSchema } from 'typebox';

export const NULL_UUID = '13814000-1dd2-11b2-8080-808080808080';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });

export const ENTITY_TYPES = [
  'TENANT',
  'CUSTOMER',
  'USER',
  'DEVICE',
  'DEVICE_PROFILE',
  'EDGE',
  'RULE_CHAIN',
  'API_KEY',
  'ASSET',
  'ASSET_PROFILE',
  'ALARM',
] as const;
export const EntityType = Type.Union(ENTITY_TYPES.map((t) => Type.Literal(t)));
export type EntityType = Static<typeof EntityType>;

export function EntityId<T extends string>(entityType: T) {
  return Type.Object({ entityType: Type.Literal(entityType), id: Type.String() });
}
export const AnyEntityId = Type.Object({ entityType: Type.String(), id: Type.String() });
export type AnyEntityId = Static<typeof AnyEntityId>;

export const ErrorResponse = Type.Object(
  {
    status: Type.Integer({ description: 'HTTP status' }),
    message: Type.String(),
    errorCode: Type.Integer({
      description:
        '2 general, 10 authentication, 11 JWT expired, 15 credentials expired, 20 permission denied, 30 invalid arguments, 31 bad request params, 32 item not found, 33 too many requests',
    }),
    timestamp: Type.Integer(),
  },
  { description: 'ThingsBoard error body' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;

export function PageData<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    totalPages: Type.Integer(),
    totalElements: Type.Integer(),
    hasNext: Type.Boolean(),
  });
}
export interface PageData<T> {
  data: T[];
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}

export const SortOrder = Type.Union([Type.Literal('ASC'), Type.Literal('DESC')]);

export function PageQuery<S extends string>(sortProperties: readonly S[]) {
  return Type.Object({
    pageSize: PageSize(),
    page: PageNumber(),
    textSearch: Type.Optional(
      Type.String({ maxLength: 255, description: 'Case-insensitive substring of the name' }),
    ),
    sortProperty: Type.Optional(Type.Union(sortProperties.map((p) => Type.Literal(p)))),
    sortOrder: Type.Optional(SortOrder),
  });
}
/** PageQuery of a route that also answers without paging (by ids, by name): pageSize and page optional. */
export function OptionalPageQuery<S extends string>(sortProperties: readonly S[]) {
  return Type.Partial(PageQuery(sortProperties));
}

export interface PageQuery {
  pageSize: number;
  page: number;
  textSearch?: string;
  sortProperty?: string;
  sortOrder?: 'ASC' | 'DESC';
}

/** A schema or null. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A string enum as one `enum` keyword: a clear validation message naming the allowed values. */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const IdParams = Type.Object({ id: Uuid });
export const JsonObject = Type.Record(Type.String(), Type.Unknown());
