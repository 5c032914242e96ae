/** How alarm comments are written inside a write: the platform's own comments and their order. */
import { randomUUID } from 'node:crypto';
import type { Writer } from '../store/durable-db.ts';
import type { Principal } from './auth/principal.ts';

export interface UserNameRow {
  email: string;
  first_name: string | null;
  last_name: string | null;
}

/** How ThingsBoard names a user in a system comment: first and last name when both are set, else the email. */
export function userDisplayName(user: UserNameRow | undefined, fallback: string): string {
  if (!user) return fallback;
  return user.first_name && user.last_name ? `${user.first_name} ${user.last_name}` : user.email;
}

/** now, or just after the alarm's last comment: an alarm's comments keep the order they were written in. */
export function commentTime(w: Writer, alarmId: string, now: number): number {
  const last = w.get<{ t: number | null }>(
    'SELECT MAX(created_time) AS t FROM alarm_comments WHERE alarm_id = ?',
    [alarmId],
  )?.t;
  return last != null && last >= now ? last + 1 : now;
}

/**
 * Writes a SYSTEM comment inside an alarm's own write (acknowledged or cleared by a user), as
 * ThingsBoard's alarm service does: {"text": "Alarm was acknowledged by user ...", "userId": "..."}.
 */
export function writeSystemComment(
  w: Writer,
  alarmId: string,
  now: number,
  actor: Principal,
  action: 'acknowledged' | 'cleared',
): void {
  const user = w.get<UserNameRow>('SELECT email, first_name, last_name FROM users WHERE id = ?', [
    actor.userId,
  ]);
  const comment = {
    text: `Alarm was ${action} by user ${userDisplayName(user, actor.email)}`,
    userId: actor.userId,
  };
  w.run(
    'INSERT INTO alarm_comments (id, created_time, alarm_id, user_id, type, comment) VALUES (?, ?, ?, NULL, ?, ?)',
    [randomUUID(), commentTime(w, alarmId, now), alarmId, 'SYSTEM', JSON.stringify(comment)],
  );
}
