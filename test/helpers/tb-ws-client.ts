/** A plain WebSocket client of ThingsBoard's /api/ws: queues what it gets, lets a test await a match. */
import { JsonSocket } from './json-socket.ts';

export type TbWsMessage = Record<string, unknown> & {
  cmdId?: number;
  subscriptionId?: number;
  errorCode?: number;
  errorMsg?: string | null;
  cmdUpdateType?: string;
};

export class TbWsClient extends JsonSocket<TbWsMessage> {
  next(match: (m: TbWsMessage) => boolean = () => true): Promise<TbWsMessage> {
    return this.nextMatching(match);
  }

  /** The next update of a command (new API: cmdId; v1 and errors: subscriptionId). */
  forCmd(cmdId: number, where: (m: TbWsMessage) => boolean = () => true): Promise<TbWsMessage> {
    return this.next((m) => (m.cmdId === cmdId || m.subscriptionId === cmdId) && where(m));
  }
}

export function tbWsUrl(p: { urls: { http: string } }, path = '/api/ws', query = ''): string {
  return `${p.urls.http.replace(/^http/, 'ws')}${path}${query}`;
}

/** Opens /api/ws and authenticates with authCmd, sending the first commands with it as the UI does. */
export async function openTbWs(
  p: { urls: { http: string } },
  auth: { token?: string; apiKey?: string },
  cmds: unknown[] = [],
): Promise<TbWsClient> {
  const client = new TbWsClient(tbWsUrl(p));
  await client.opened();
  client.send({ authCmd: { cmdId: 0, ...auth }, cmds });
  return client;
}
