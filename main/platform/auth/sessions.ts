import type { Writer } from '../../store/durable-db.ts';
import type { PlatformContext } from '../context.ts';

/**
 * The one way every credential or authority change ends a user's sessions: inside the change's own write,
 * tokens issued before now stop verifying (access and refresh alike, see AuthService.verifyJwt); once the
 * write is durable, `announceSessionsEnded` tells the caches and the live WebSocket connections at once.
 */
export function endSessions(ctx: PlatformContext, w: Writer, userIds: readonly string[]): void {
  const validFrom = ctx.now();
  for (const id of userIds) w.run('UPDATE users SET tokens_valid_from = ? WHERE id = ?', [validFrom, id]);
}

export function announceSessionsEnded(ctx: PlatformContext, userIds: readonly string[]): void {
  if (userIds.length > 0) ctx.events.emit('sessionsEnded', { userIds: [...userIds] });
}
