import { Type } from 'typebox';
import {
  AlarmComment,
  AlarmCommentInfo,
  AlarmCommentQuery,
  SaveAlarmCommentRequest,
} from '../../../shared/schemas/alarm-comments.ts';
import { PageData, Uuid } from '../../../shared/schemas/common.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const AlarmParams = Type.Object({ alarmId: Uuid });

/** ThingsBoard's AlarmCommentController. */
export function registerAlarmCommentRoutes(app: Api, { services }: RouteDeps): void {
  const { alarmComments } = services;
  const tags = ['Alarm comments'];

  app.post(
    '/api/alarm/:alarmId/comment',
    {
      schema: {
        tags,
        summary:
          'Comment on an alarm ({"comment": {"text": "..."}}), or with an id edit your own comment (marked edited)',
        params: AlarmParams,
        body: SaveAlarmCommentRequest,
        response: { 200: AlarmComment, ...authErrors },
      },
    },
    async (request) => alarmComments.save(request.params.alarmId, request.body, principalOf(request)),
  );
  app.get(
    '/api/alarm/:alarmId/comment',
    {
      schema: {
        tags,
        summary:
          "An alarm's comments with their authors, a page at a time (newest first unless sorted otherwise)",
        params: AlarmParams,
        querystring: AlarmCommentQuery,
        response: { 200: PageData(AlarmCommentInfo), ...authErrors },
      },
    },
    async (request) => alarmComments.page(request.params.alarmId, request.query, principalOf(request)),
  );
  app.delete(
    '/api/alarm/:alarmId/comment/:commentId',
    {
      schema: {
        tags,
        summary:
          'Delete your comment: it becomes a system comment saying it was deleted (a system comment: 400)',
        params: Type.Object({ alarmId: Uuid, commentId: Uuid }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await alarmComments.delete(request.params.alarmId, request.params.commentId, principalOf(request));
      return reply.code(200).send();
    },
  );
}
