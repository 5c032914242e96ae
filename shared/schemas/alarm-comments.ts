/** Alarm comments in ThingsBoard's shapes (AlarmComment, AlarmCommentInfo) and the listing's query. */
import { Type, type Static } from 'typebox';
import { PageNumber, PageSize } from '../limits.ts';
import { EntityId, Nullable, StringEnum } from './common.ts';

export const ALARM_COMMENT_TYPES = ['SYSTEM', 'OTHER'] as const;
export type AlarmCommentType = (typeof ALARM_COMMENT_TYPES)[number];

export const ALARM_COMMENT_LIMITS = {
  /** ThingsBoard's @Length(max = 10000) on the comment's JSON */
  commentChars: 10_000,
  /** comments one alarm keeps at most (system comments included) */
  perAlarm: 10_000,
} as const;

export const AlarmComment = Type.Object({
  id: EntityId('ALARM_COMMENT'),
  createdTime: Type.Integer(),
  alarmId: EntityId('ALARM'),
  userId: Nullable(EntityId('USER')),
  type: StringEnum(ALARM_COMMENT_TYPES, {
    description:
      'SYSTEM: written by the platform (acknowledged, cleared, a deleted comment); OTHER: by a user',
  }),
  comment: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'JSON object with the text of the comment: {"text": "..."}; edited ones get edited and editedOn',
  }),
  name: Type.String({ description: 'The comment as JSON text' }),
});
export type AlarmComment = Static<typeof AlarmComment>;

export const AlarmCommentInfo = Type.Object({
  ...AlarmComment.properties,
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  email: Nullable(Type.String()),
});
export type AlarmCommentInfo = Static<typeof AlarmCommentInfo>;

/** POST /api/alarm/{alarmId}/comment: a new comment, or with an id the user's own comment edited. */
export const SaveAlarmCommentRequest = Type.Object({
  id: Type.Optional(
    Nullable(
      Type.Object({
        entityType: Type.Optional(Type.Literal('ALARM_COMMENT')),
        id: Type.String({ format: 'uuid' }),
      }),
    ),
  ),
  alarmId: Type.Optional(Type.Unknown({ description: 'ignored: the alarm of the path' })),
  userId: Type.Optional(Type.Unknown({ description: 'ignored: the caller' })),
  type: Type.Optional(Type.Unknown({ description: 'ignored: a user’s comment is always OTHER' })),
  comment: Type.Record(Type.String(), Type.Unknown(), {
    description: 'JSON object with the text: {"text": "Please take a look"}',
  }),
});
export type SaveAlarmCommentRequest = Static<typeof SaveAlarmCommentRequest>;

export const AlarmCommentQuery = Type.Object({
  pageSize: PageSize(),
  page: PageNumber(),
  sortProperty: Type.Optional(StringEnum(['createdTime', 'id'] as const)),
  sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
});
export type AlarmCommentQuery = Static<typeof AlarmCommentQuery>;
