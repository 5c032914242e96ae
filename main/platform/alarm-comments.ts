import { randomUUID } from 'node:crypto';
import {
  ALARM_COMMENT_LIMITS,
  type AlarmComment,
  type AlarmCommentInfo,
  type AlarmCommentQuery,
  type AlarmCommentType,
  type SaveAlarmCommentRequest,
} from '../../shared/schemas/alarm-comments.ts';
import type { PageData } from '../../shared/schemas/common.ts';
import { commentTime, userDisplayName, type UserNameRow } from './alarm-comment-records.ts';
import type { AlarmService } from './alarms.ts';
import type { Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { badRequestParams, forbidden, notFound } from './errors.ts';
import { parseJson, queryPage } from './paging.ts';
import type { StoreBudget } from './store-budget.ts';

interface CommentRow {
  id: string;
  created_time: number;
  alarm_id: string;
  user_id: string | null;
  type: AlarmCommentType;
  comment: string;
}

/**
 * ThingsBoard's alarm comments: users comment on an alarm they may see (a customer user: its customer's),
 * edit their own comments (marked edited), and delete them, which leaves a SYSTEM comment saying so.
 * Acknowledging and clearing write SYSTEM comments too (AlarmService, through writeSystemComment).
 */
export class AlarmCommentService {
  private readonly ctx: PlatformContext;
  private readonly alarms: AlarmService;
  private readonly storage: StoreBudget | undefined;

  constructor(ctx: PlatformContext, alarms: AlarmService, storage?: StoreBudget) {
    this.ctx = ctx;
    this.alarms = alarms;
    this.storage = storage;
  }

  page(alarmId: string, q: AlarmCommentQuery, actor: Principal): PageData<AlarmCommentInfo> {
    this.alarms.accessibleRow(alarmId, actor);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM alarm_comments e LEFT JOIN users u ON u.id = e.user_id',
        columns: 'e.*, u.email AS email, u.first_name AS first_name, u.last_name AS last_name',
        where: ['e.alarm_id = ?'],
        params: [alarmId],
        searchColumn: 'e.comment',
        sortColumns: { createdTime: 'e.created_time', id: 'e.id' },
        defaultSort: 'createdTime',
      },
      q,
      (row) => {
        const r = row as unknown as CommentRow & Partial<UserNameRow>;
        return {
          ...toComment(r),
          firstName: r.first_name ?? null,
          lastName: r.last_name ?? null,
          email: r.email ?? null,
        };
      },
    );
  }

  /** A new comment (type OTHER), or with an id the caller's own comment edited. */
  async save(alarmId: string, req: SaveAlarmCommentRequest, actor: Principal): Promise<AlarmComment> {
    this.alarms.accessibleRow(alarmId, actor);
    const id = req.id?.id;
    if (id) {
      const existing = this.requireComment(alarmId, id);
      if (existing.user_id !== null && existing.user_id !== actor.userId) {
        throw forbidden("User is not allowed to edit other user's comment");
      }
    }
    const now = this.ctx.now();
    const comment: Record<string, unknown> = id
      ? { ...req.comment, edited: 'true', editedOn: now }
      : req.comment;
    const text = JSON.stringify(comment);
    if (text.length > ALARM_COMMENT_LIMITS.commentChars) {
      throw badRequestParams(
        `comment length must be equal or less than ${ALARM_COMMENT_LIMITS.commentChars}`,
      );
    }
    if (!id) await this.storage?.admit();
    const saved = await this.ctx.db.write((w) => {
      if (!w.get('SELECT 1 FROM alarms WHERE id = ?', [alarmId])) {
        throw notFound(`Alarm with id [${alarmId}] is not found`);
      }
      if (id) {
        if (!w.get('SELECT 1 FROM alarm_comments WHERE id = ? AND alarm_id = ?', [id, alarmId])) {
          throw notFound(`Alarm comment with id [${id}] is not found`);
        }
        w.run('UPDATE alarm_comments SET comment = ? WHERE id = ?', [text, id]);
        return id;
      }
      const count = w.get<{ n: number }>('SELECT COUNT(*) AS n FROM alarm_comments WHERE alarm_id = ?', [
        alarmId,
      ]);
      if (Number(count?.n ?? 0) >= ALARM_COMMENT_LIMITS.perAlarm) {
        throw badRequestParams(`An alarm keeps at most ${ALARM_COMMENT_LIMITS.perAlarm} comments`);
      }
      const newId = randomUUID();
      w.run(
        'INSERT INTO alarm_comments (id, created_time, alarm_id, user_id, type, comment) VALUES (?, ?, ?, ?, ?, ?)',
        [newId, commentTime(w, alarmId, now), alarmId, actor.userId, 'OTHER', text],
      );
      return newId;
    });
    return toComment(this.requireComment(alarmId, saved));
  }

  /** A user's comment becomes a SYSTEM one saying it was deleted, as in ThingsBoard; a system comment stays (400). */
  async delete(alarmId: string, commentId: string, actor: Principal): Promise<void> {
    this.alarms.accessibleRow(alarmId, actor);
    const existing = this.requireComment(alarmId, commentId);
    if (existing.type !== 'OTHER') throw badRequestParams('System comment could not be deleted');
    const user = this.ctx.db.get<UserNameRow>('SELECT email, first_name, last_name FROM users WHERE id = ?', [
      actor.userId,
    ]);
    const text = JSON.stringify({ text: `User ${userDisplayName(user, actor.email)} deleted his comment` });
    await this.ctx.db.write((w) =>
      w.run("UPDATE alarm_comments SET type = 'SYSTEM', user_id = NULL, comment = ? WHERE id = ?", [
        text,
        commentId,
      ]),
    );
  }

  private requireComment(alarmId: string, id: string): CommentRow {
    const row = this.ctx.db.get<CommentRow>('SELECT * FROM alarm_comments WHERE id = ? AND alarm_id = ?', [
      id,
      alarmId,
    ]);
    if (!row) throw notFound(`Alarm comment with id [${id}] is not found`);
    return row;
  }
}

function toComment(row: CommentRow): AlarmComment {
  const comment = parseJson(row.comment);
  return {
    id: ref('ALARM_COMMENT', row.id),
    createdTime: row.created_time,
    alarmId: ref('ALARM', row.alarm_id),
    userId: row.user_id ? ref('USER', row.user_id) : null,
    type: row.type,
    comment,
    name: JSON.stringify(comment),
  };
}
