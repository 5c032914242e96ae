import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  TB_WS_LIMITS,
  TB_WS_PATH,
  TB_WS_TELEMETRY_PATH,
  TbWsCloseCode,
} from '../../../shared/schemas/tb-ws.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import { TbWsHub } from './tb-ws-hub.ts';
import { TbWsSession, type SessionKind, type TbSocket } from './tb-ws-session.ts';

/**
 * ThingsBoard's WebSocket API: /api/ws (WsCommandsWrapper, authCmd first or ?token=) and the deprecated
 * /api/ws/plugins/telemetry (TelemetryCmdsWrapper, ?token=). Needs @fastify/websocket registered first.
 * Any Origin may connect, as in ThingsBoard: a session is only ever authenticated by a token it sends.
 */
export function registerTbWsRoutes(app: FastifyInstance, { services }: { services: Services }): void {
  const hub = new TbWsHub(services);
  const sessions = new Set<TbWsSession>();
  hub.onSessionsEnded = (userIds) => {
    for (const s of [...sessions])
      if (s.principal && userIds.includes(s.principal.userId))
        s.close(TbWsCloseCode.POLICY_VIOLATION, 'The session ended: log in again');
  };
  const pings = setInterval(() => {
    const now = Date.now();
    for (const s of sessions) s.pingTick(now);
  }, TB_WS_LIMITS.pingTimeoutMs / 3);
  pings.unref();
  app.addHook('onClose', async () => {
    clearInterval(pings);
    hub.stop();
    for (const s of [...sessions]) s.close(TbWsCloseCode.GOING_AWAY, 'Server stopping');
  });

  const open = (socket: TbSocket, request: FastifyRequest, kind: SessionKind | null) => {
    if (!kind) {
      socket.close(TbWsCloseCode.BAD_DATA, 'Unknown session type');
      return;
    }
    let principal: Principal | null = null;
    const token = (request.query as { token?: unknown }).token;
    if (typeof token === 'string' && token !== '') {
      try {
        principal = services.auth.authenticate(`Bearer ${token}`);
      } catch (err) {
        socket.close(TbWsCloseCode.SERVER_ERROR, err instanceof Error ? err.message.slice(0, 120) : '');
        return;
      }
    }
    const session = new TbWsSession(socket, kind, hub, principal);
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
  };
  const route = { websocket: true, config: { public: true }, schema: { hide: true } } as const;
  app.get(TB_WS_PATH, route, ((socket: TbSocket, request: FastifyRequest) =>
    open(socket, request, 'GENERAL')) as never);
  app.get('/api/ws/plugins/:type', route, ((socket: TbSocket, request: FastifyRequest) => {
    const type = (request.params as { type: string }).type;
    open(socket, request, `/api/ws/plugins/${type}` === TB_WS_TELEMETRY_PATH ? 'TELEMETRY' : null);
  }) as never);
}
